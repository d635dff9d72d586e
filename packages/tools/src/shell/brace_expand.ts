/**
 * Brace expansion as bash does it, on words the tokenizer marked: an unquoted `{`, `,` and `}`
 * come as `BRACE_OPEN`, `BRACE_COMMA` and `BRACE_CLOSE` (a quoted one stays a plain character, as
 * bash leaves it). `a{b,c}d` gives `abd acd`, `{1..3}` gives `1 2 3`, groups nest; a brace with
 * no comma or sequence in it stays as written (`{`, `a{b}`).
 */

/** An unquoted `{`. */
export const BRACE_OPEN = '\u0010';
/** An unquoted `,`. */
export const BRACE_COMMA = '\u0011';
/** An unquoted `}`. */
export const BRACE_CLOSE = '\u0012';

/** The most words one word expands to; past that the rest are left out. */
const MAX_WORDS = 64;
const SEQUENCE = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/;

/** The markers made plain characters again. */
export function plain_braces(word: string): string {
  return word.replaceAll(BRACE_OPEN, '{').replaceAll(BRACE_COMMA, ',').replaceAll(BRACE_CLOSE, '}');
}

/** The items of a sequence expression (`1..3`, `a..e`, `10..1..3`), or undefined. */
function sequence(inside: string): string[] | undefined {
  const match = SEQUENCE.exec(inside);
  if (!match) return undefined;
  const [, from, to, step_text] = match as unknown as [string, string, string, string?];
  const numeric = /\d/.test(from) && /\d/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return undefined;
  const start = numeric ? Number(from) : from.charCodeAt(0);
  const end = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(step_text ?? 1)) || 1);
  const items: string[] = [];
  const up = end >= start;
  for (let value = start; up ? value <= end : value >= end; value += up ? step : -step) {
    items.push(numeric ? String(value) : String.fromCharCode(value));
    if (items.length > MAX_WORDS) break;
  }
  return items;
}

/** The first group `{…}` that expands: its bounds and its alternatives. */
function first_group(word: string): { start: number; end: number; items: string[] } | undefined {
  for (
    let start = word.indexOf(BRACE_OPEN);
    start !== -1;
    start = word.indexOf(BRACE_OPEN, start + 1)
  ) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < word.length; i++) {
      const char = word[i];
      if (char === BRACE_OPEN) depth++;
      else if (char === BRACE_COMMA && depth === 1) commas.push(i);
      else if (char === BRACE_CLOSE && --depth === 0) {
        if (commas.length > 0) {
          const bounds = [start, ...commas, i];
          const items = bounds.slice(1).map((at, index) => word.slice(bounds[index]! + 1, at));
          return { start, end: i, items };
        }
        const items = sequence(word.slice(start + 1, i));
        if (items !== undefined) return { start, end: i, items };
        break;
      }
    }
  }
  return undefined;
}

/**
 * The words a marked word expands to, markers made plain in each. Empty words from the expansion
 * are dropped, as bash drops them.
 *
 * Contract: pure, never throws; at most `MAX_WORDS` words.
 */
export function brace_expand(word: string): string[] {
  if (!word.includes(BRACE_OPEN)) return [plain_braces(word)];
  const done: string[] = [];
  const pending = [word];
  while (pending.length > 0 && done.length < MAX_WORDS) {
    const current = pending.shift()!;
    const group = first_group(current);
    if (group === undefined) {
      const plain = plain_braces(current);
      if (plain !== '') done.push(plain);
      continue;
    }
    const before = current.slice(0, group.start);
    const after = current.slice(group.end + 1);
    for (const item of group.items) pending.push(`${before}${item}${after}`);
    if (pending.length > MAX_WORDS) pending.length = MAX_WORDS;
  }
  return done;
}

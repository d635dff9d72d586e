import { parse } from 'yaml';

/** A markdown file split into its YAML front matter and its body. */
export interface FrontMatterDocument {
  /** The parsed front matter; empty when the file has none. */
  data: Record<string, unknown>;
  /** The text after the front matter. */
  body: string;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits `text` into YAML front matter (between a first line `---` and the next `---` line) and
 * the body. A file without front matter is all body.
 *
 * Contract: throws an `Error` whose message says what is wrong when the front matter is opened but
 * never closed, is not valid YAML, or is not a mapping; callers turn that into a warning.
 */
export function parse_front_matter(text: string): FrontMatterDocument {
  const opening = OPENING.exec(text);
  if (opening === null) return { data: {}, body: text };
  const rest = text.slice(opening[0].length);
  // an empty front matter closes on the very next line
  const closing = rest.startsWith('---') ? /^---[ \t]*(?:\r?\n|$)/.exec(rest) : CLOSING.exec(rest);
  if (closing === null) throw new Error('the front matter opened with --- is never closed');
  const yaml_text = rest.slice(0, closing.index);
  let data: unknown;
  try {
    data = parse(yaml_text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new Error(`the front matter is not valid YAML: ${message}`);
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new Error('the front matter is not a mapping of keys to values');
  }
  return {
    data: data as Record<string, unknown>,
    body: rest.slice(closing.index + closing[0].length),
  };
}

/**
 * A list-valued front matter field as strings: a YAML list, or a string split on commas (Claude
 * Code's `allowed-tools: Read, Grep`) or else on spaces outside parentheses (the Agent Skills
 * standard's `allowed-tools: Bash(git:*) Read`). Absent or empty: undefined.
 */
export function string_list(value: unknown): string[] | undefined {
  if (Array.isArray(value)) {
    const items = value.filter((item): item is string => typeof item === 'string');
    const trimmed = items.map((item) => item.trim()).filter((item) => item !== '');
    return trimmed.length === 0 ? undefined : trimmed;
  }
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const items: string[] = [];
  let depth = 0;
  let current = '';
  const separators = value.includes(',') ? [','] : [' ', '\t', '\n'];
  for (const char of value) {
    if (char === '(') depth += 1;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && separators.includes(char)) {
      if (current.trim() !== '') items.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim() !== '') items.push(current.trim());
  return items.length === 0 ? undefined : items;
}

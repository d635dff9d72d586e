/** An open code fence: the line that opened it, and what closes it. */
interface Fence {
  opener: string;
  marker: string;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fence open at the end of `text`, given the one open at its start. */
function fence_after(text: string, open: Fence | null): Fence | null {
  let fence = open;
  for (const line of text.split('\n')) {
    const match = FENCE_LINE.exec(line);
    if (match === null) continue;
    const run = match[1] ?? '';
    const rest = match[2] ?? '';
    if (fence === null) {
      // a backtick fence's info string may not hold a backtick
      if (run.startsWith('`') && rest.includes('`')) continue;
      fence = { opener: line.trimStart(), marker: run };
    } else if (
      run[0] === fence.marker[0] &&
      run.length >= fence.marker.length &&
      rest.trim() === ''
    ) {
      fence = null;
    }
  }
  return fence;
}

/** One way to break: where the piece ends and where the rest starts. */
interface Cut {
  end: number;
  next: number;
}

/** The last cut of each kind in `window`, best kind first: paragraph, line, sentence, word. */
function cuts_in(window: string): (Cut | null)[] {
  const last = (pattern: RegExp): Cut | null => {
    let found: Cut | null = null;
    for (const match of window.matchAll(pattern)) {
      const start = match.index ?? 0;
      const keep = match[1]?.length ?? 0;
      if (start + keep > 0) found = { end: start + keep, next: start + match[0].length };
    }
    return found;
  };
  return [
    last(/\n[ \t]*\n(?:[ \t]*\n)*/g),
    last(/\n/g),
    last(/([.!?…]["')\]]*)\s+/g),
    last(/[ \t]+/g),
  ];
}

/** A cut at `at`, moved back so it does not split a surrogate pair. */
function hard_cut(text: string, at: number): Cut {
  const code = text.charCodeAt(at - 1);
  const end = code >= 0xd800 && code <= 0xdbff && at > 1 ? at - 1 : at;
  return { end, next: end };
}

/**
 * Splits a reply into messages of at most `limit` characters for a platform (Telegram 4096,
 * Discord 2000, Twitch 500).
 *
 * Contract:
 * - a text that fits is one chunk; an empty or blank text is none;
 * - it breaks at the last paragraph break that leaves the chunk at least a third full, else a line
 *   break, else a sentence end, else a space, else mid-word (never inside a surrogate pair);
 * - it never leaves a code fence broken: a chunk that ends inside one closes it, and the next
 *   chunk reopens it with the same opening line (language included), both counted in `limit`;
 * - every chunk is at most `limit` characters, and joining the chunks loses no character of the
 *   text other than the whitespace at the cuts.
 */
export function chunk_reply(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 16)
    throw new RangeError(`chunk limit too small: ${limit}`);
  const chunks: string[] = [];
  let rest = text;
  let open: Fence | null = null;
  while (rest.trim() !== '') {
    const prefix: string = open === null ? '' : `${open.opener}\n`;
    if (prefix.length + rest.length <= limit) {
      chunks.push(prefix + rest.trimEnd());
      break;
    }
    let reserve = 0;
    let piece = '';
    let next_rest = '';
    let fence_at_end: Fence | null = null;
    // twice at most: a piece that ends inside a fence needs room for the closing line
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const budget = Math.max(1, limit - prefix.length - reserve);
      const window = rest.slice(0, budget);
      const floor = Math.floor(window.length / 3);
      const cuts = cuts_in(window);
      const cut =
        cuts.find((candidate) => candidate !== null && candidate.end >= floor) ??
        cuts.find((candidate) => candidate !== null) ??
        hard_cut(rest, window.length);
      piece = rest.slice(0, cut.end);
      next_rest = rest.slice(cut.next);
      fence_at_end = fence_after(piece, open);
      const needed = fence_at_end === null ? 0 : fence_at_end.marker.length + 1;
      if (needed <= reserve) break;
      reserve = needed;
    }
    const closing = fence_at_end === null ? '' : `\n${fence_at_end.marker}`;
    const chunk = `${prefix}${fence_at_end === null ? piece.trimEnd() : piece}${closing}`;
    if (chunk.trim() !== '') chunks.push(chunk);
    open = fence_at_end;
    rest = open === null ? next_rest.replace(/^\s*\n/, '') : next_rest;
  }
  return chunks;
}

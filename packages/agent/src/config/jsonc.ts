/** How deep a config may nest objects and arrays. */
export const MAX_JSON_DEPTH = 64;

/** JSONC text made plain JSON, and how deep it nests. */
export interface JsoncScan {
  /** The text with comments and trailing commas blanked out (same length, same line breaks). */
  json: string;
  /** The deepest nesting of objects and arrays. */
  depth: number;
  /** Whether there were comments. */
  had_comments: boolean;
}

/**
 * Turns JSON with comments (`//`, `/* *\/`) and trailing commas, as editors write config files,
 * into plain JSON, and measures its nesting without recursion. A leading UTF-8 byte order mark
 * is dropped. Comments and trailing commas are replaced with spaces, so a parse error's position
 * still points at the same line and column. Text inside strings is left alone. Pure; never
 * throws (malformed text is left for `JSON.parse` to report).
 */
export function scan_jsonc(text: string): JsoncScan {
  const source = text.charCodeAt(0) === 0xfeff ? ` ${text.slice(1)}` : text;
  const out = source.split('');
  let depth = 0;
  let max_depth = 0;
  let had_comments = false;
  /** Where the last comma outside strings is, while only blanks and comments follow it. */
  let pending_comma = -1;
  const blank = (from: number, to: number) => {
    for (let index = from; index < to; index++) {
      if (out[index] !== '\n' && out[index] !== '\r') out[index] = ' ';
    }
  };
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (char === '"') {
      pending_comma = -1;
      index++;
      while (index < source.length && source[index] !== '"') {
        if (source[index] === '\\') index++;
        index++;
      }
      continue;
    }
    if (char === '/' && source[index + 1] === '/') {
      const end = source.indexOf('\n', index);
      const stop = end === -1 ? source.length : end;
      blank(index, stop);
      had_comments = true;
      index = stop - 1;
      continue;
    }
    if (char === '/' && source[index + 1] === '*') {
      const end = source.indexOf('*/', index + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(index, stop);
      had_comments = true;
      index = stop - 1;
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      if (depth > max_depth) max_depth = depth;
      pending_comma = -1;
    } else if (char === '}' || char === ']') {
      if (pending_comma !== -1) out[pending_comma] = ' ';
      pending_comma = -1;
      depth--;
    } else if (char === ',') {
      pending_comma = index;
    } else if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') {
      pending_comma = -1;
    }
  }
  return { json: out.join(''), depth: max_depth, had_comments };
}

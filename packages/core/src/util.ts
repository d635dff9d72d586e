/**
 * Small helpers the loop and every other package lean on: JSON that never throws, and text clamping
 * that says what it cut.
 */

/** The outcome of `safe_json_parse`: the parsed value, or why the text is not JSON. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses JSON text.
 *
 * Contract: never throws. Text that is not JSON (or a value that is not a string) gives
 * `{ ok: false, error }` with the parser's own message, fit to show to a model.
 */
export function safe_json_parse(text: string): JsonParseResult {
  if (typeof text !== 'string') {
    return { ok: false, error: `expected JSON text, got ${describe_type(text)}` };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Turns any value into JSON text.
 *
 * Contract: never throws. A reference back to an enclosing object becomes `"[Circular]"` (a value
 * merely repeated elsewhere is written out again), a BigInt becomes its decimal string, an `Error`
 * becomes `{ name, message }`. A value JSON cannot represent at the top level (`undefined`, a
 * function, a symbol) gives `String(value)`; a value whose `toJSON` or getter throws gives
 * `"[Unserializable: <reason>]"`.
 */
export function safe_stringify(value: unknown, indent?: number): string {
  const ancestors: unknown[] = [];
  function replacer(this: unknown, _key: string, current: unknown): unknown {
    if (typeof current === 'bigint') return current.toString();
    if (typeof current !== 'object' || current === null) return current;
    // `this` is the object holding `current`; drop ancestors that are not on its path.
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(current)) return '[Circular]';
    ancestors.push(current);
    if (current instanceof Error) {
      return { name: current.name, message: current.message };
    }
    return current;
  }
  try {
    const text = JSON.stringify(value, replacer, indent);
    return text === undefined ? String(value) : text;
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unknown error';
    return `[Unserializable: ${reason}]`;
  }
}

/**
 * Clamps `text` to at most `max_chars` UTF-16 code units, keeping its head and its tail and
 * marking the cut in between as `…[cut N chars]…`.
 *
 * Contract: returns `text` itself when it fits; otherwise a string no longer than `max_chars` that
 * never splits a surrogate pair. When `max_chars` is too small to hold the marker, only the head
 * is kept. Throws a `RangeError` when `max_chars` is not a non-negative integer.
 */
export function truncate_text(text: string, max_chars: number): string {
  if (!Number.isInteger(max_chars) || max_chars < 0) {
    throw new RangeError(
      `truncate_text: max_chars must be a non-negative integer, got ${max_chars}`,
    );
  }
  if (text.length <= max_chars) return text;
  // The marker's length depends on the count it reports; the whole length bounds that count.
  const marker_length = cut_marker(text.length).length;
  const keep = max_chars - marker_length;
  if (keep <= 0) return drop_broken_tail(text.slice(0, max_chars));
  const head = drop_broken_tail(text.slice(0, Math.ceil(keep / 2)));
  const tail_length = Math.floor(keep / 2);
  const tail = tail_length === 0 ? '' : drop_broken_head(text.slice(text.length - tail_length));
  return `${head}${cut_marker(text.length - head.length - tail.length)}${tail}`;
}

function cut_marker(count: number): string {
  return `\n…[cut ${count} chars]…\n`;
}

function is_high_surrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function is_low_surrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function drop_broken_tail(text: string): string {
  return text.length > 0 && is_high_surrogate(text.charCodeAt(text.length - 1))
    ? text.slice(0, -1)
    : text;
}

function drop_broken_head(text: string): string {
  return text.length > 0 && is_low_surrogate(text.charCodeAt(0)) ? text.slice(1) : text;
}

function describe_type(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

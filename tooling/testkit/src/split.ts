/** Splits `text` into pieces of at most `size` characters (code points, never a half pair). */
export function split_text(text: string, size: number): string[] {
  if (text === '') return [];
  const width = Math.max(1, Math.floor(size));
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += width) {
    pieces.push(points.slice(start, start + width).join(''));
  }
  return pieces;
}

/** Splits `text` into `count` pieces of near-equal length (fewer when it is shorter). */
export function split_into(text: string, count: number): string[] {
  if (text === '') return [];
  const points = Array.from(text);
  const size = Math.ceil(points.length / Math.max(1, Math.floor(count)));
  return split_text(text, size);
}

/** Splits `bytes` into writes of at most `size` bytes. */
export function split_bytes(bytes: Uint8Array, size: number): Uint8Array[] {
  const width = Math.max(1, Math.floor(size));
  const parts: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += width) {
    parts.push(bytes.subarray(start, start + width));
  }
  return parts;
}

/** The arguments of a scripted tool call as JSON text. */
export function arguments_text(value: string | Record<string, unknown>): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The arguments of a scripted tool call as an object (invalid JSON text becomes `{}`). */
export function arguments_object(value: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof value !== 'string') return value;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A rough token count: characters / 4, at least 1. */
export function estimate_tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

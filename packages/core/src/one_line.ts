/**
 * `text` on one line: whitespace runs collapsed to one space, trimmed, and at most `limit`
 * characters (code points: a surrogate pair is never split), `…` marking a cut within that limit.
 * For error messages and listings. Never throws.
 */
export function one_line(text: string, limit = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  const points = Array.from(flat);
  if (points.length <= limit) return flat;
  return `${points
    .slice(0, Math.max(0, limit - 1))
    .join('')
    .trimEnd()}…`;
}

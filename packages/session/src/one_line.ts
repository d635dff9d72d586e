/**
 * `text` on one line (whitespace runs collapsed to one space, trimmed) and clamped to `limit`
 * characters, an ellipsis marking a cut. Never throws.
 */
export function one_line(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  const points = Array.from(flat);
  if (points.length <= limit) return flat;
  return `${points
    .slice(0, Math.max(0, limit - 1))
    .join('')
    .trimEnd()}…`;
}

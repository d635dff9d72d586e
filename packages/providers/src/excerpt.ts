/**
 * `text` fit for one line of an error message: whitespace runs collapsed to one space, trimmed,
 * and cut to `limit` characters with `…` marking the cut. Never throws.
 */
export function excerpt(text: string, limit = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit)}…` : flat;
}

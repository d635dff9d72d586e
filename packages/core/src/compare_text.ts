/**
 * Orders two strings by their UTF-16 code units, for `Array.prototype.sort`: negative when `a`
 * comes first, positive when `b` does, 0 when they are equal.
 *
 * Use it for names, ids and ISO timestamps instead of `localeCompare`: the order is the same on
 * every machine whatever its locale (a list that goes into a prompt stays byte for byte the same,
 * so the provider's prompt cache keeps it), and it costs nothing up front, where the first
 * `localeCompare` of a process builds ICU's collator (some 15 ms of CPU before Lich's first model
 * request, when a project has two skills).
 */
export function compare_text(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

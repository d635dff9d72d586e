import { edit_distance } from '@lich/tools';

/**
 * The candidate closest to `word` (case-insensitive), or `undefined` when none is close enough:
 * within `max_distance` edits (default: a third of the word's length, at least 2), or one that
 * starts with the word. Ties go to the earlier candidate. Never throws.
 */
export function nearest_word(
  word: string,
  candidates: Iterable<string>,
  max_distance = Math.max(2, Math.floor(word.length / 3)),
): string | undefined {
  const needle = word.toLowerCase();
  const list = [...candidates];
  let best: string | undefined;
  let best_distance = Number.POSITIVE_INFINITY;
  for (const candidate of list) {
    const distance = edit_distance(needle, candidate.toLowerCase());
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  if (best === undefined) return undefined;
  if (best_distance <= max_distance) return best;
  if (needle.length >= 3) {
    for (const candidate of list) {
      if (candidate.toLowerCase().startsWith(needle)) return candidate;
    }
  }
  return undefined;
}

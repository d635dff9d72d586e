/**
 * The Levenshtein distance between `a` and `b`: how many single-character insertions, deletions
 * or substitutions turn one into the other. Pure; never throws.
 */
export function edit_distance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      current[column] = Math.min(
        (previous[column] as number) + 1,
        (current[column - 1] as number) + 1,
        (previous[column - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

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

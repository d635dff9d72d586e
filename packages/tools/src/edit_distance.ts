/**
 * The Levenshtein distance between `a` and `b`: how many single-character insertions, deletions
 * or substitutions turn one into the other. Strings longer than `MAX_EDIT_DISTANCE_LENGTH` are not
 * compared letter by letter (the cost is quadratic): their distance is the longer length. Pure;
 * never throws.
 */
export function edit_distance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  if (a.length > MAX_EDIT_DISTANCE_LENGTH || b.length > MAX_EDIT_DISTANCE_LENGTH) {
    return Math.max(a.length, b.length);
  }
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

/** Beyond this length `edit_distance` answers the longer length instead of comparing. */
export const MAX_EDIT_DISTANCE_LENGTH = 128;

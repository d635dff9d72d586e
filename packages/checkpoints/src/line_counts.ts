/** Lines added and removed between two texts. */
export interface LineCounts {
  readonly added: number;
  readonly removed: number;
}

/** Past this many edits the exact count is given up for an estimate (the cost grows with it). */
const MAX_EDITS = 2_000;

function split_lines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The length of the shortest edit script between `a` and `b` (Myers), or undefined past `limit`. */
function edit_distance(a: Int32Array, b: Int32Array, limit: number): number | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, limit);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) {
        x = v[offset + k + 1]!;
      } else {
        x = v[offset + k - 1]! + 1;
      }
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return undefined;
}

/**
 * The lines added and removed from `before` to `after`, as a line diff counts them (Myers' shortest
 * edit script, after the common head and tail are set aside). Past 2,000 changed lines the count
 * is an estimate from the lines each side has that the other lacks.
 */
export function count_line_changes(before: string, after: string): LineCounts {
  const a_lines = split_lines(before);
  const b_lines = split_lines(after);
  let head = 0;
  while (head < a_lines.length && head < b_lines.length && a_lines[head] === b_lines[head]) head++;
  let tail = 0;
  while (
    tail < a_lines.length - head &&
    tail < b_lines.length - head &&
    a_lines[a_lines.length - 1 - tail] === b_lines[b_lines.length - 1 - tail]
  ) {
    tail++;
  }
  const a_mid = a_lines.slice(head, a_lines.length - tail);
  const b_mid = b_lines.slice(head, b_lines.length - tail);
  if (a_mid.length === 0 || b_mid.length === 0)
    return { added: b_mid.length, removed: a_mid.length };
  const ids = new Map<string, number>();
  const to_ids = (lines: string[]) =>
    Int32Array.from(lines, (line) => {
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      return id;
    });
  const a = to_ids(a_mid);
  const b = to_ids(b_mid);
  const d = edit_distance(a, b, MAX_EDITS);
  if (d !== undefined) {
    // d = added + removed, and added - removed = |b| - |a|
    return { added: (d + b.length - a.length) / 2, removed: (d - b.length + a.length) / 2 };
  }
  const counts = new Map<number, number>();
  for (const id of a) counts.set(id, (counts.get(id) ?? 0) + 1);
  let added = 0;
  for (const id of b) {
    const left = counts.get(id) ?? 0;
    if (left > 0) counts.set(id, left - 1);
    else added++;
  }
  return { added, removed: a.length - (b.length - added) };
}

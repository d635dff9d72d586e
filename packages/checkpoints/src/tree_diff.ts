import type { TreeEntry, TreeReader } from './tree.js';

/** A folder entry without its name. */
export type FlatEntry = Omit<TreeEntry, 'name'>;

/** One path that differs between two trees: what it was (`before`) and what it is (`after`). */
export interface TreeDifference {
  /** `/`-separated, relative to the work folder. */
  readonly path: string;
  readonly before: FlatEntry | undefined;
  readonly after: FlatEntry | undefined;
}

function flat(entry: TreeEntry): FlatEntry {
  return { kind: entry.kind, mode: entry.mode, size: entry.size, ref: entry.ref };
}

function same(a: TreeEntry, b: TreeEntry): boolean {
  return a.kind === b.kind && a.mode === b.mode && a.size === b.size && a.ref === b.ref;
}

/**
 * The paths that differ between tree `before` and tree `after` (either may be undefined: an empty
 * folder), parents before their contents, in path order. A folder present on one side only is
 * listed, then everything in it. Subtrees with equal hashes are not read.
 *
 * Contract: throws a `CheckpointError` (`corrupt`) when a tree it needs is missing or damaged.
 */
export function diff_trees(
  trees: TreeReader,
  before: string | undefined,
  after: string | undefined,
): TreeDifference[] {
  const out: TreeDifference[] = [];
  const walk = (prefix: string, a: string | undefined, b: string | undefined) => {
    if (a === b) return;
    const left = a === undefined ? [] : trees.read(a);
    const right = b === undefined ? [] : trees.read(b);
    let i = 0;
    let j = 0;
    while (i < left.length || j < right.length) {
      const l = left[i];
      const r = right[j];
      let x: TreeEntry | undefined;
      let y: TreeEntry | undefined;
      if (r === undefined || (l !== undefined && l.name < r.name)) {
        x = l;
        i++;
      } else if (l === undefined || r.name < l.name) {
        y = r;
        j++;
      } else {
        x = l;
        y = r;
        i++;
        j++;
      }
      const name = (x ?? y)!.name;
      const path = prefix === '' ? name : `${prefix}/${name}`;
      if (x !== undefined && y !== undefined && same(x, y)) continue;
      if (x?.kind === 'd' && y?.kind === 'd') {
        if (x.mode !== y.mode) out.push({ path, before: flat(x), after: flat(y) });
        walk(path, x.ref, y.ref);
        continue;
      }
      out.push({ path, before: x && flat(x), after: y && flat(y) });
      if (x?.kind === 'd') walk(path, x.ref, undefined);
      if (y?.kind === 'd') walk(path, undefined, y.ref);
    }
  };
  walk('', before, after);
  return out;
}

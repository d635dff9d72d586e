/** The pieces a scan builds a folder's new index entries with (`scan.ts`). */
import { closeSync, openSync, readSync, type Stats } from 'node:fs';
import { CACHEDIR_TAG_SIGNATURE } from './exclude_rules.js';
import { type DirIndex, NUMS_PER_ENTRY } from './file_index.js';
import type { EntryKind } from './tree.js';

/**
 * A folder being scanned: its new entries, built as parallel arrays like `DirIndex`. While every
 * entry so far is the previous index's, unchanged and in place, nothing is copied: the arrays
 * stay null and `count` says how many of the previous entries were met (most folders of most
 * checkpoints end that way, and keep their previous `DirIndex`).
 */
export interface Builder {
  readonly rel: string;
  readonly prev: DirIndex | undefined;
  names: string[] | null;
  kinds: EntryKind[];
  nums: number[];
  refs: string[];
  /** Entries of `prev` met in place while the arrays are null. */
  count: number;
  /** Subfolders by entry position. */
  readonly children: Map<number, Builder>;
  /** Every entry is the previous index's, unchanged (known at the end of the walk). */
  same: boolean;
  result: DirIndex | undefined;
}

/** Gives `dir` its own arrays: the first `count` entries of the previous index, copied. */
export function materialize(dir: Builder): asserts dir is Builder & { names: string[] } {
  if (dir.names !== null) return;
  const prev = dir.prev;
  const count = dir.count;
  dir.names = prev === undefined ? [] : prev.names.slice(0, count);
  dir.kinds = prev === undefined ? [] : (prev.kinds.slice(0, count).split('') as EntryKind[]);
  dir.nums = prev === undefined ? [] : prev.nums.slice(0, count * NUMS_PER_ENTRY);
  dir.refs = prev === undefined ? [] : prev.refs.slice(0, count);
}

/** Files, bytes and not-kept entries of a folder kept as it was, counted once. */
const TOTALS = new WeakMap<DirIndex, { files: number; bytes: number; not_kept: number }>();

/** The files, bytes and not-kept entries of `dir`'s own entries (remembered per `DirIndex`). */
export function totals_of(dir: DirIndex): { files: number; bytes: number; not_kept: number } {
  let totals = TOTALS.get(dir);
  if (totals === undefined) {
    totals = { files: 0, bytes: 0, not_kept: 0 };
    for (let i = 0; i < dir.names.length; i++) {
      const kind = dir.kinds[i];
      if (kind === 'f') {
        totals.files++;
        totals.bytes += dir.nums[i * NUMS_PER_ENTRY]!;
      } else if (kind === 'x') {
        totals.not_kept++;
      }
    }
    TOTALS.set(dir, totals);
  }
  return totals;
}

/** A file to read and hash after the walk: entry `at` of `dir`, at `path`, `size` bytes by its stat. */
export interface Pending {
  readonly dir: Builder;
  readonly at: number;
  readonly path: string;
  readonly size: number;
}

/** True when `path` holds a `CACHEDIR.TAG` that starts with the standard's signature. */
export function is_cache_dir(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(`${path}/CACHEDIR.TAG`, 'r');
    const head = Buffer.alloc(CACHEDIR_TAG_SIGNATURE.length);
    readSync(fd, head, 0, head.length, 0);
    return head.toString('latin1') === CACHEDIR_TAG_SIGNATURE;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Appends an entry; returns its position. */
export function push(
  dir: Builder,
  name: string,
  kind: EntryKind,
  stat: Stats,
  racy: boolean,
  ref: string,
): number {
  materialize(dir);
  dir.names.push(name);
  dir.kinds.push(kind);
  const size = kind === 'f' || kind === 'x' ? stat.size : 0;
  const mode = kind === 'l' ? 0 : stat.mode & 0o7777;
  // a folder's own times say nothing a checkpoint needs: keeping them would dirty the index
  if (kind === 'd') dir.nums.push(0, 0, 0, 0, mode, 0);
  else dir.nums.push(size, stat.mtimeMs, stat.ctimeMs, stat.ino, mode, racy ? 1 : 0);
  dir.refs.push(ref);
  return dir.names.length - 1;
}

/** Keeps entry `j` of the previous index unchanged (copied only once the folder differs). */
export function keep(dir: Builder, prev: DirIndex, j: number): void {
  if (dir.names === null && j === dir.count) {
    dir.count++;
    return;
  }
  materialize(dir);
  dir.names.push(prev.names[j]!);
  dir.kinds.push(prev.kinds[j] as EntryKind);
  const base = j * NUMS_PER_ENTRY;
  for (let k = 0; k < NUMS_PER_ENTRY; k++) dir.nums.push(prev.nums[base + k]!);
  dir.refs.push(prev.refs[j]!);
}

/** True when entry `j` of `prev` has this stat and is not racy. */
export function same_stat(prev: DirIndex, j: number, stat: Stats): boolean {
  const n = prev.nums;
  const base = j * NUMS_PER_ENTRY;
  return (
    n[base + 5] === 0 &&
    n[base] === stat.size &&
    n[base + 1] === stat.mtimeMs &&
    n[base + 2] === stat.ctimeMs &&
    n[base + 3] === stat.ino &&
    n[base + 4] === (stat.mode & 0o7777)
  );
}

/** True when entry `i` of `dir` is what the tree of `prev` had at `j` (kind, mode, size, ref). */
export function same_in_tree(dir: Builder, i: number, prev: DirIndex, j: number): boolean {
  return (
    dir.kinds[i] === prev.kinds[j] &&
    dir.refs[i] === prev.refs[j] &&
    dir.nums[i * NUMS_PER_ENTRY] === prev.nums[j * NUMS_PER_ENTRY] &&
    dir.nums[i * NUMS_PER_ENTRY + 4] === prev.nums[j * NUMS_PER_ENTRY + 4]
  );
}

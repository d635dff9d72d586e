import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmp_name } from './object_store.js';

/** Numbers kept per entry in `DirIndex.nums`: size, mtime, ctime, inode, mode, racy (0 or 1). */
export const NUMS_PER_ENTRY = 6;

/**
 * One folder of the index, as parallel arrays (a folder of 20,000 entries is six arrays, not
 * 20,000 objects): entry `i` is `names[i]`, of kind `kinds[i]` (`f`, `l`, `d` or `x`, as in a
 * tree), with `nums[6i..6i+5]` = size, mtime, ctime, inode, mode, racy, and `refs[i]` as in
 * `TreeEntry.ref` (a `d` entry's ref is its subfolder's tree). `racy` is 1 when the entry changed
 * too close to the moment it was read for its stat to be trusted: it is read again next time.
 */
export interface DirIndex {
  readonly tree: string;
  /** Sorted. */
  readonly names: readonly string[];
  readonly kinds: string;
  readonly nums: readonly number[];
  readonly refs: readonly string[];
}

const INDEX_VERSION = 2;

/**
 * The stat cache of a work folder: for each folder its last tree hash and, for each entry, the
 * size, mtime, ctime, inode and mode it had when its content was last hashed. A checkpoint reads
 * again only the files whose stat differs, so a turn that touched nothing costs a stat walk.
 */
export class FileIndex {
  /** Folders by path relative to the work folder (`''` for the work folder itself). */
  readonly dirs: Map<string, DirIndex>;
  /** The file's identity when this process last read or wrote it; another writer changes it. */
  identity: string | undefined;

  constructor(dirs = new Map<string, DirIndex>(), identity?: string) {
    this.dirs = dirs;
    this.identity = identity;
  }

  /** Every hash the index refers to (contents and trees): a prune keeps them. */
  *hashes(): Generator<string> {
    for (const dir of this.dirs.values()) {
      if (dir.tree !== '') yield dir.tree;
      for (let i = 0; i < dir.names.length; i++) {
        const kind = dir.kinds[i];
        if (kind === 'f' || kind === 'd') yield dir.refs[i]!;
      }
    }
  }
}

/** The identity of the index file now (inode, size, mtime), or undefined when there is none. */
export function index_identity(path: string): string | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  return info === undefined ? undefined : `${info.ino}:${info.size}:${info.mtimeMs}`;
}

type Row = [string, string, string[], string, number[], string[]];

function valid_row(row: unknown): row is Row {
  if (!Array.isArray(row) || row.length !== 6) return false;
  const [rel, tree, names, kinds, nums, refs] = row as unknown[];
  return (
    typeof rel === 'string' &&
    typeof tree === 'string' &&
    Array.isArray(names) &&
    typeof kinds === 'string' &&
    Array.isArray(nums) &&
    Array.isArray(refs) &&
    kinds.length === names.length &&
    refs.length === names.length &&
    nums.length === names.length * NUMS_PER_ENTRY
  );
}

/**
 * Reads the index at `path`. A missing, unreadable or damaged index is an empty one: the next
 * checkpoint hashes everything again, which is slower but never wrong.
 */
export function load_index(path: string): FileIndex {
  const identity = index_identity(path);
  if (identity === undefined) return new FileIndex();
  try {
    const body = JSON.parse(readFileSync(path, 'latin1')) as { v: number; d: unknown[] };
    if (body.v !== INDEX_VERSION || !Array.isArray(body.d)) return new FileIndex();
    const dirs = new Map<string, DirIndex>();
    for (const row of body.d) {
      if (!valid_row(row)) return new FileIndex();
      const [rel, tree, names, kinds, nums, refs] = row;
      dirs.set(unlatin(rel), {
        tree,
        names: names.map(unlatin),
        kinds,
        nums,
        refs: refs.map(unlatin),
      });
    }
    return new FileIndex(dirs, identity);
  } catch {
    return new FileIndex();
  }
}

// The file is written as UTF-8 and read as latin1 (no decoding of the hashes, which are most of
// it); the few names and link targets that are not ASCII are decoded here.
function unlatin(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'latin1').toString('utf8');
  }
  return text;
}

/**
 * Writes `index` to `path` through a file in `tmp_dir` renamed into place, so a crash leaves the
 * previous index whole. Updates `index.identity`. Throws what the file system throws.
 */
export function save_index(path: string, tmp_dir: string, index: FileIndex): void {
  const rows: Row[] = [];
  for (const [rel, dir] of index.dirs) {
    rows.push([
      rel,
      dir.tree,
      dir.names as string[],
      dir.kinds,
      dir.nums as number[],
      dir.refs as string[],
    ]);
  }
  const tmp = join(tmp_dir, tmp_name());
  try {
    writeFileSync(tmp, JSON.stringify({ v: INDEX_VERSION, d: rows }), { flag: 'wx' });
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  index.identity = index_identity(path);
}

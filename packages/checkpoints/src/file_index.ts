import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  /** The id of the index file written last: its journal's rows belong to it. */
  generation: string | undefined;

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

/** The journal beside the index: rows of the folders that changed since it was written. */
function journal_path(path: string): string {
  return `${path.replace(/\.json$/, '')}.log`;
}

function identity_of(path: string): string | undefined {
  const info = statSync(path, { throwIfNoEntry: false });
  return info === undefined ? undefined : `${info.ino}:${info.size}:${info.mtimeMs}`;
}

/**
 * The identity of the index now (inode, size and mtime of the file and of its journal), or
 * undefined when there is none: another writer changes it.
 */
export function index_identity(path: string): string | undefined {
  const base = identity_of(path);
  return base === undefined ? undefined : `${base}|${identity_of(journal_path(path)) ?? ''}`;
}

type Row = [string, string, string[], string, number[], string[]];
/** A folder that is gone. */
type Tombstone = [string, null];

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

function dir_of(row: Row): [string, DirIndex] {
  const [rel, tree, names, kinds, nums, refs] = row;
  return [unlatin(rel), { tree, names: names.map(unlatin), kinds, nums, refs: refs.map(unlatin) }];
}

function row_of(rel: string, dir: DirIndex): Row {
  return [
    rel,
    dir.tree,
    dir.names as string[],
    dir.kinds,
    dir.nums as number[],
    dir.refs as string[],
  ];
}

/**
 * Applies the journal's rows written for generation `generation`. A line that does not parse (the
 * tail of an append a crash cut) ends it: what follows is not trusted.
 */
function apply_journal(path: string, generation: string, dirs: Map<string, DirIndex>): void {
  let text: string;
  try {
    text = readFileSync(journal_path(path), 'latin1');
  } catch {
    return;
  }
  const lines = text.split('\n');
  if (lines[0] !== JSON.stringify({ g: generation })) return;
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return;
    }
    if (Array.isArray(row) && row.length === 2 && typeof row[0] === 'string' && row[1] === null) {
      dirs.delete(unlatin(row[0]));
    } else if (valid_row(row)) {
      const [rel, dir] = dir_of(row);
      dirs.set(rel, dir);
    } else {
      return;
    }
  }
}

/**
 * Reads the index at `path` and its journal. A missing, unreadable or damaged index is an empty
 * one: the next checkpoint hashes everything again, which is slower but never wrong.
 */
export function load_index(path: string): FileIndex {
  const identity = index_identity(path);
  if (identity === undefined) return new FileIndex();
  try {
    const body = JSON.parse(readFileSync(path, 'latin1')) as {
      v: number;
      g?: string;
      d: unknown[];
    };
    if (body.v !== INDEX_VERSION || !Array.isArray(body.d)) return new FileIndex();
    const dirs = new Map<string, DirIndex>();
    for (const row of body.d) {
      if (!valid_row(row)) return new FileIndex();
      const [rel, dir] = dir_of(row);
      dirs.set(rel, dir);
    }
    if (typeof body.g === 'string') apply_journal(path, body.g, dirs);
    const index = new FileIndex(dirs, identity);
    index.generation = typeof body.g === 'string' ? body.g : undefined;
    return index;
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

/** The journal is folded into a new index once it holds this share of the index's size. */
const JOURNAL_SHARE = 0.5;

/**
 * Saves `next`, the index after `previous`: when `previous` was loaded or saved by this store and
 * the journal is still small, only the folders that changed are appended to the journal (an
 * append a crash cuts is ignored past the cut); otherwise the whole index is written through a
 * file in `tmp_dir` renamed into place (a crash leaves the previous one whole) and the journal
 * starts afresh. Sets `next.identity` and `next.generation`. Throws what the file system throws.
 */
export function save_index(
  path: string,
  tmp_dir: string,
  next: FileIndex,
  previous: FileIndex,
): void {
  if (previous.generation !== undefined && previous.identity === index_identity(path)) {
    const lines: string[] = [];
    for (const [rel, dir] of next.dirs) {
      if (previous.dirs.get(rel) !== dir) lines.push(JSON.stringify(row_of(rel, dir)));
    }
    for (const rel of previous.dirs.keys()) {
      if (!next.dirs.has(rel)) lines.push(JSON.stringify([rel, null] satisfies Tombstone));
    }
    const base = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    const journal = statSync(journal_path(path), { throwIfNoEntry: false })?.size ?? 0;
    const adding = lines.reduce((sum, line) => sum + line.length + 1, 0);
    if (journal + adding < base * JOURNAL_SHARE) {
      const head = journal === 0 ? `${JSON.stringify({ g: previous.generation })}\n` : '';
      appendFileSync(journal_path(path), `${head}${lines.join('\n')}\n`);
      next.generation = previous.generation;
      next.identity = index_identity(path);
      return;
    }
  }
  const rows: Row[] = [];
  for (const [rel, dir] of next.dirs) rows.push(row_of(rel, dir));
  const generation = randomBytes(6).toString('hex');
  const tmp = join(tmp_dir, tmp_name());
  try {
    writeFileSync(tmp, JSON.stringify({ v: INDEX_VERSION, g: generation, d: rows }), {
      flag: 'wx',
    });
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  // a journal of the previous generation is ignored even if this removal is cut short
  rmSync(journal_path(path), { force: true });
  next.generation = generation;
  next.identity = index_identity(path);
}

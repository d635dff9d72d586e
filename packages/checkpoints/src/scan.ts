import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CheckpointError, system_code, throw_if_aborted } from './errors.js';
import { ALWAYS_EXCLUDED, type ExcludeRules } from './exclude_rules.js';
import { type DirIndex, FileIndex, NUMS_PER_ENTRY } from './file_index.js';
import { hash_of, type ObjectStore } from './object_store.js';
import {
  type Builder,
  is_cache_dir,
  keep,
  materialize,
  type Pending,
  push,
  same_in_tree,
  same_stat,
  totals_of,
} from './scan_builder.js';
import { serialize_tree, type TreeEntry, type TreeReader } from './tree.js';

/**
 * A file whose ctime or mtime is this close to the start of a scan may change again within the same
 * timestamp tick without its stat showing it: its stat is not trusted next time (git's "racily
 * clean" rule). The window is the file system's tick: whole seconds where timestamps have no
 * fraction (FAT keeps 2 s), a few milliseconds of kernel clock where they do (ext4, btrfs, xfs,
 * APFS: nanoseconds stamped from a clock that moves every few milliseconds).
 */
export const RACY_WINDOW_MS = 2_000;

/** The window for a file whose timestamps have a fraction of a second. */
export const FINE_RACY_WINDOW_MS = 50;

/** Files read at once while hashing. */
const READ_CONCURRENCY = 8;

/** Excluded paths a scan reports, at most. */
const EXCLUDED_REPORT_LIMIT = 50;

/** What a scan needs. */
export interface ScanOptions {
  readonly work_dir: string;
  readonly rules: ExcludeRules;
  /** Files larger than this are recorded by name and size, not kept. */
  readonly max_file_bytes: number;
  /** The stat cache from the previous scan (not modified). */
  readonly index: FileIndex;
  readonly objects: ObjectStore;
  readonly trees: TreeReader;
  /** How long after a change a file's stat is not trusted; default `RACY_WINDOW_MS`. */
  readonly racy_window_ms?: number;
  /** What is known of the folders since the previous scan (`FolderWatch`); none: read them all. */
  readonly hints?: FolderHints;
  readonly signal?: AbortSignal;
}

/**
 * What a scan may skip: a folder whose entries are known to be as the index has them (no file
 * notification came from it since the previous scan) is not listed, and its files' stats are not
 * read; its subfolders are still visited. Every folder's ctime is reported, and a folder whose
 * ctime moved is read whatever the hints say.
 */
export interface FolderHints {
  /** True when folder `rel` (ctime `ctime_ms` now) has the entries the index has. */
  unchanged(rel: string, ctime_ms: number): boolean;
  /** Folder `rel` was seen with this ctime. */
  seen(rel: string, ctime_ms: number): void;
  /** Paths the previous scan found excluded (a kept folder's are still there). */
  readonly excluded: readonly string[];
}

/** What a scan found and stored. */
export interface ScanResult {
  /** The hash of the work folder's tree. */
  readonly tree: string;
  /** The new stat cache. */
  readonly index: FileIndex;
  /** False when the new index equals the old one (nothing to save). */
  readonly index_changed: boolean;
  /** Files kept in the tree, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Files recorded by name only (over the size cap, or unreadable). */
  readonly not_kept: number;
  /** Files read and hashed this time (their stat had changed), and their bytes. */
  readonly hashed_files: number;
  readonly hashed_bytes: number;
  /** Objects written to the store this time, and the bytes they take there. */
  readonly new_objects: number;
  readonly new_bytes: number;
  /** Excluded paths found (up to 50), e.g. `node_modules`; `.git` and `.lich` are not listed. */
  readonly excluded: string[];
}

/**
 * Records the work folder in the store: a stat walk that reuses the index for every entry whose
 * stat is unchanged, then reads, hashes and stores only the other files, then writes the tree of
 * each folder that changed. Symbolic links are recorded, never followed; sockets, FIFOs and devices
 * are skipped; an unreadable file or folder is recorded by name as not kept.
 *
 * Contract: the walk is synchronous (one `lstat` per entry), the reading is not. Rejects with a
 * `CheckpointError`: `no_work_dir`, `not_writable`, or `aborted` when `signal` fires (objects
 * already stored stay, unreferenced, until a prune).
 */
export async function scan_work_dir(options: ScanOptions): Promise<ScanResult> {
  const { work_dir, rules, max_file_bytes, index, objects, signal } = options;
  const root_stat = lstatSync(work_dir, { throwIfNoEntry: false });
  if (root_stat === undefined || !root_stat.isDirectory()) {
    throw new CheckpointError('no_work_dir', `${work_dir} is not a folder`);
  }
  const now = Date.now();
  const coarse_limit = now - (options.racy_window_ms ?? RACY_WINDOW_MS);
  const fine_limit = now - (options.racy_window_ms ?? FINE_RACY_WINDOW_MS);
  const pending: Pending[] = [];
  const post_order: Builder[] = [];
  const excluded: string[] = [];
  let seen = 0;

  const hints = options.hints;
  // the excluded paths of a folder kept as it was, by folder
  const kept_excluded = new Map<string, string[]>();
  for (const path of hints?.excluded ?? []) {
    const slash = path.lastIndexOf('/');
    const parent = slash === -1 ? '' : path.slice(0, slash);
    const list = kept_excluded.get(parent);
    if (list === undefined) kept_excluded.set(parent, [path]);
    else list.push(path);
  }

  const new_builder = (rel: string): Builder => ({
    rel,
    prev: index.dirs.get(rel),
    names: null,
    kinds: [],
    nums: [],
    refs: [],
    count: 0,
    children: new Map(),
    same: false,
    result: undefined,
  });

  /** Folder `rel` as the hints say it is: its entries from the index, subfolders visited. */
  const walk_kept = (rel: string, path: string, prev: DirIndex): Builder => {
    const dir = new_builder(rel);
    for (const excluded_path of kept_excluded.get(rel) ?? []) {
      if (excluded.length < EXCLUDED_REPORT_LIMIT) excluded.push(excluded_path);
    }
    for (let j = 0; j < prev.names.length; j++) {
      if (++seen % 1024 === 0) throw_if_aborted(signal, 'the checkpoint');
      // a racy file's stat is read again, as in a full walk
      if (prev.kinds[j] === 'd' || prev.nums[j * NUMS_PER_ENTRY + 5] !== 0) {
        visit(dir, prev.names[j]!, j, path);
      } else {
        keep(dir, prev, j);
      }
    }
    return finish(dir);
  };

  const walk = (rel: string, path: string, names: string[]): Builder => {
    names.sort();
    const dir = new_builder(rel);
    const prev_names = dir.prev?.names ?? [];
    let j = 0;
    for (const name of names) {
      if (++seen % 1024 === 0) throw_if_aborted(signal, 'the checkpoint');
      // both lists are sorted: walk the previous one alongside
      while (j < prev_names.length && prev_names[j]! < name) j++;
      visit(dir, name, j < prev_names.length && prev_names[j] === name ? j : -1, path);
    }
    return finish(dir);
  };

  const finish = (dir: Builder): Builder => {
    // in place to the end, and nothing of the previous listing gone
    dir.same = dir.names === null && dir.prev !== undefined && dir.count === dir.prev.names.length;
    if (!dir.same) materialize(dir);
    post_order.push(dir);
    return dir;
  };

  /** Entry `name` of `dir` (at `path`), entry `old` of the previous index or -1. */
  const visit = (dir: Builder, name: string, old: number, path: string): void => {
    const prev = dir.prev;
    const rel = dir.rel;
    const child_rel = rel === '' ? name : `${rel}/${name}`;
    const child_path = `${path}/${name}`;
    const stat = lstatSync(child_path, { throwIfNoEntry: false });
    if (stat === undefined) return;
    const is_dir = stat.isDirectory();
    if (rules.is_excluded(child_rel, name, is_dir)) {
      if (excluded.length < EXCLUDED_REPORT_LIMIT && !ALWAYS_EXCLUDED.includes(name)) {
        excluded.push(child_rel);
      }
      return;
    }
    // a timestamp with a fraction of a second says the file system keeps fine ones
    const limit =
      stat.mtimeMs % 1000 === 0 && stat.ctimeMs % 1000 === 0 ? coarse_limit : fine_limit;
    const racy = stat.ctimeMs >= limit || stat.mtimeMs >= limit;
    const old_kind = old === -1 ? undefined : prev!.kinds[old];
    if (is_dir) {
      hints?.seen(child_rel, stat.ctimeMs);
      const child_prev = index.dirs.get(child_rel);
      let child: Builder;
      if (child_prev !== undefined && hints?.unchanged(child_rel, stat.ctimeMs) === true) {
        child = walk_kept(child_rel, child_path, child_prev);
      } else {
        let child_names: string[];
        try {
          child_names = readdirSync(child_path);
        } catch (error) {
          if (system_code(error) === 'ENOENT') return;
          push(dir, name, 'x', stat, false, '');
          return;
        }
        if (rules.cache_tags && child_names.includes('CACHEDIR.TAG') && is_cache_dir(child_path)) {
          if (excluded.length < EXCLUDED_REPORT_LIMIT) excluded.push(child_rel);
          return;
        }
        child = walk(child_rel, child_path, child_names);
      }
      // the ref is the child's tree, known once the trees are built
      const in_place =
        dir.names === null &&
        old === dir.count &&
        old_kind === 'd' &&
        prev!.nums[old * NUMS_PER_ENTRY + 4] === (stat.mode & 0o7777);
      if (in_place) dir.children.set(dir.count++, child);
      else dir.children.set(push(dir, name, 'd', stat, false, ''), child);
    } else if (stat.isSymbolicLink()) {
      if (old_kind === 'l' && same_stat(prev!, old, stat)) {
        keep(dir, prev!, old);
        return;
      }
      let target: string;
      try {
        target = readlinkSync(child_path);
      } catch {
        return;
      }
      push(dir, name, 'l', stat, racy, target);
    } else if (stat.isFile()) {
      if ((old_kind === 'f' || old_kind === 'x') && same_stat(prev!, old, stat)) {
        keep(dir, prev!, old);
      } else if (stat.size > max_file_bytes) {
        push(dir, name, 'x', stat, racy, '');
      } else {
        pending.push({
          dir,
          at: push(dir, name, 'f', stat, racy, ''),
          path: child_path,
          size: stat.size,
        });
      }
    }
  };

  const list_root = (): string[] => {
    try {
      return readdirSync(work_dir);
    } catch (error) {
      throw new CheckpointError('no_work_dir', `cannot list ${work_dir}: ${system_code(error)}`, {
        cause: error,
      });
    }
  };
  hints?.seen('', root_stat.ctimeMs);
  const root_prev = index.dirs.get('');
  const root =
    root_prev !== undefined && hints?.unchanged('', root_stat.ctimeMs) === true
      ? walk_kept('', work_dir, root_prev)
      : walk('', work_dir, list_root());

  let hashed_files = 0;
  let hashed_bytes = 0;
  let new_objects = 0;
  let new_bytes = 0;
  let next = 0;
  const hash_one = async (item: Pending) => {
    const { dir, at } = item;
    let data: Buffer;
    try {
      data = await readFile(item.path);
    } catch (error) {
      // gone since its stat: recorded as not kept, so a restore leaves whatever is there alone
      dir.kinds[at] = 'x';
      dir.nums[at * NUMS_PER_ENTRY + 5] = 1;
      if (system_code(error) === 'ENOENT') dir.nums[at * NUMS_PER_ENTRY] = 0;
      return;
    }
    // a file that changed between its stat and its read is read again next time
    if (data.length !== item.size) {
      dir.nums[at * NUMS_PER_ENTRY] = data.length;
      dir.nums[at * NUMS_PER_ENTRY + 5] = 1;
    }
    if (data.length > max_file_bytes) {
      dir.kinds[at] = 'x';
      return;
    }
    const hash = hash_of(data);
    hashed_files++;
    hashed_bytes += data.length;
    dir.refs[at] = hash;
    const written = await objects.put(hash, data);
    if (written > 0) {
      new_objects++;
      new_bytes += written;
    }
  };
  const worker = async () => {
    while (next < pending.length) {
      throw_if_aborted(signal, 'the checkpoint');
      await hash_one(pending[next++]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, pending.length) }, worker));
  throw_if_aborted(signal, 'the checkpoint');

  // trees, children first; a folder whose entries are all as before keeps its tree
  let files = 0;
  let bytes = 0;
  let not_kept = 0;
  let index_changed = false;
  const dirs = new Map<string, DirIndex>();
  for (const dir of post_order) {
    if (dir.same && dir.prev!.tree !== '') {
      let children_same = true;
      // a subfolder whose tree is the same (its files only touched) changes nothing here
      for (const child of dir.children.values()) {
        if (child.result!.tree !== child.prev?.tree) {
          children_same = false;
          break;
        }
      }
      if (children_same) {
        // the folder as it was, down to its subfolders: its previous entry stands
        const totals = totals_of(dir.prev!);
        files += totals.files;
        bytes += totals.bytes;
        not_kept += totals.not_kept;
        dir.result = dir.prev!;
        dirs.set(dir.rel, dir.result);
        continue;
      }
      dir.same = false;
    }
    materialize(dir);
    const { prev, names, kinds, nums, refs } = dir;
    let same_tree = prev !== undefined && prev.tree !== '' && prev.names.length === names.length;
    let j = 0;
    for (let i = 0; i < names.length; i++) {
      const kind = kinds[i]!;
      if (kind === 'd') {
        refs[i] = dir.children.get(i)!.result!.tree;
      } else if (kind === 'f') {
        files++;
        bytes += nums[i * NUMS_PER_ENTRY]!;
      } else if (kind === 'x') {
        not_kept++;
      }
      if (same_tree) {
        while (j < prev!.names.length && prev!.names[j]! < names[i]!) j++;
        if (prev!.names[j] !== names[i] || !same_in_tree(dir, i, prev!, j)) same_tree = false;
      }
    }
    index_changed = true;
    let tree = prev?.tree ?? '';
    if (!same_tree) {
      const entries: TreeEntry[] = names.map((name, i) => ({
        name,
        kind: kinds[i]!,
        mode: nums[i * NUMS_PER_ENTRY + 4]!,
        size: nums[i * NUMS_PER_ENTRY]!,
        ref: refs[i]!,
      }));
      const text = serialize_tree(entries);
      tree = hash_of(text);
      const written = objects.put_sync(tree, text);
      if (written > 0) {
        new_objects++;
        new_bytes += written;
      }
      options.trees.remember(tree, entries);
    }
    dir.result = { tree, names, kinds: kinds.join(''), nums, refs };
    dirs.set(dir.rel, dir.result);
  }
  if (dirs.size !== index.dirs.size) index_changed = true;
  const next_index = new FileIndex(dirs, index.identity);
  next_index.generation = index.generation;

  return {
    tree: root.result!.tree,
    index: next_index,
    index_changed,
    files,
    bytes,
    not_kept,
    hashed_files,
    hashed_bytes,
    new_objects,
    new_bytes,
    excluded,
  };
}

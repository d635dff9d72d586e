import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { FileIndex } from './file_index.js';
import { is_hash } from './object_store.js';
import { type CheckpointRecord, remove_record } from './records.js';
import type { StoreLayout } from './store_layout.js';
import type { TreeReader } from './tree.js';

/** What a prune keeps and removes. */
export interface PruneOptions {
  /** Checkpoints older than this many days are removed (unless protected). */
  readonly keep_days?: number;
  /** Then the oldest unprotected checkpoints go until the store holds at most this many bytes. */
  readonly max_bytes?: number;
  /** Checkpoints that stay whatever their age (those of sessions still open). */
  readonly protect?: (record: CheckpointRecord) => boolean;
  /** Says what it would remove, removes nothing. */
  readonly dry_run?: boolean;
  /** The time to measure ages from (tests). */
  readonly now?: number;
}

/** What a prune did (or, with `dry_run`, would do). */
export interface PruneResult {
  /** The checkpoints removed. */
  readonly removed: CheckpointRecord[];
  /** Checkpoints left. */
  readonly kept: number;
  /** Objects removed and their bytes (unreferenced ones included). */
  readonly removed_objects: number;
  readonly freed_bytes: number;
  /** The bytes of the objects left. */
  readonly total_bytes: number;
}

interface StoredObject {
  readonly hash: string;
  readonly path: string;
  readonly bytes: number;
}

/** Every object file of the store, with its size. */
export function list_objects(layout: StoreLayout): StoredObject[] {
  const out: StoredObject[] = [];
  let fanout: string[];
  try {
    fanout = readdirSync(layout.objects);
  } catch {
    return out;
  }
  for (const prefix of fanout) {
    const dir = join(layout.objects, prefix);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const hash = prefix + name;
      if (!is_hash(hash)) continue;
      const path = join(dir, name);
      const info = lstatSync(path, { throwIfNoEntry: false });
      if (info !== undefined) out.push({ hash, path, bytes: info.size });
    }
  }
  return out;
}

/**
 * Chooses which checkpoints go and sweeps the objects nothing refers to any more. Objects are
 * marked from the newest checkpoint to the oldest, each with the newest checkpoint that uses it,
 * so removing the oldest checkpoints one by one frees exactly the objects only they used.
 * Protected checkpoints and the index are marked first and never freed.
 *
 * Contract: the caller holds the store lock. Records are removed before objects, so a crash
 * midway leaves unreferenced objects (swept next time), never a checkpoint missing a part.
 * Throws a `CheckpointError` (`corrupt`) when a kept checkpoint's tree cannot be read.
 */
export function prune_store(options: {
  layout: StoreLayout;
  trees: TreeReader;
  records: readonly CheckpointRecord[];
  index: FileIndex;
  prune: PruneOptions;
}): PruneResult {
  const { layout, trees, prune } = options;
  const now = prune.now ?? Date.now();
  const protect = prune.protect ?? (() => false);
  const cutoff = prune.keep_days === undefined ? -Infinity : now - prune.keep_days * 86_400_000;
  const records = [...options.records].sort((a, b) => (a.id < b.id ? -1 : 1));
  const removed: CheckpointRecord[] = [];
  const candidates: CheckpointRecord[] = [];
  const kept_protected: CheckpointRecord[] = [];
  for (const record of records) {
    if (protect(record)) kept_protected.push(record);
    else if (Date.parse(record.created_at) < cutoff) removed.push(record);
    else candidates.push(record);
  }

  // rank: Infinity for what must stay, else the position (oldest first) of the newest user
  const rank = new Map<string, number>();
  const mark_tree = (root: string, value: number) => {
    const stack = [root];
    while (stack.length > 0) {
      const tree = stack.pop()!;
      if (rank.has(tree)) continue;
      rank.set(tree, value);
      for (const entry of trees.read(tree)) {
        if (entry.kind === 'd') stack.push(entry.ref);
        else if (entry.kind === 'f' && !rank.has(entry.ref)) rank.set(entry.ref, value);
      }
    }
  };
  for (const hash of options.index.hashes()) {
    // an index tree's subtrees are in the index too; its files are listed one by one
    if (!rank.has(hash)) rank.set(hash, Infinity);
  }
  for (const record of kept_protected) mark_tree(record.tree, Infinity);
  for (let i = candidates.length - 1; i >= 0; i--) mark_tree(candidates[i]!.tree, i);

  const objects = list_objects(layout);
  const freed_by = new Array<number>(candidates.length).fill(0);
  let total = 0;
  for (const object of objects) {
    const value = rank.get(object.hash);
    if (value === undefined) continue;
    total += object.bytes;
    if (value !== Infinity) freed_by[value]! += object.bytes;
  }
  let drop = 0;
  if (prune.max_bytes !== undefined) {
    while (total > prune.max_bytes && drop < candidates.length) total -= freed_by[drop++]!;
  }
  removed.push(...candidates.slice(0, drop));
  const dead = (hash: string) => {
    const value = rank.get(hash);
    return value === undefined || (value !== Infinity && value < drop);
  };
  let removed_objects = 0;
  let freed_bytes = 0;
  for (const object of objects) {
    if (!dead(object.hash)) continue;
    removed_objects++;
    freed_bytes += object.bytes;
  }
  if (prune.dry_run !== true) {
    for (const record of removed) remove_record(layout, record.id);
    for (const object of objects) if (dead(object.hash)) rmSync(object.path, { force: true });
    for (const name of safe_list(layout.tmp))
      rmSync(join(layout.tmp, name), { force: true, recursive: true });
  }
  return {
    removed: removed.sort((a, b) => (a.id < b.id ? -1 : 1)),
    kept: records.length - removed.length,
    removed_objects,
    freed_bytes,
    total_bytes: total,
  };
}

function safe_list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

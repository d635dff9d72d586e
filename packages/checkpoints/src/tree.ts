import { CheckpointError } from './errors.js';
import { is_hash, type ObjectStore } from './object_store.js';

/**
 * The kind of one entry of a folder listing: `f` a file whose content is kept, `l` a symbolic link,
 * `d` a folder, `x` a file over the size cap, recorded by name and size but not kept.
 */
export type EntryKind = 'f' | 'l' | 'd' | 'x';

/** One entry of a folder listing (a tree object). */
export interface TreeEntry {
  readonly name: string;
  readonly kind: EntryKind;
  /** Permission bits (`mode & 0o7777`); 0 for a link. */
  readonly mode: number;
  /** Bytes, for `f` and `x`; 0 otherwise. */
  readonly size: number;
  /** `f`: the content's hash; `l`: the link's target; `d`: the folder's tree hash; `x`: empty. */
  readonly ref: string;
}

const TREE_VERSION = 1;

/** The stored form of a folder listing; `entries` must be sorted by name. */
export function serialize_tree(entries: readonly TreeEntry[]): string {
  return JSON.stringify({
    v: TREE_VERSION,
    e: entries.map((entry) => [entry.name, entry.kind, entry.mode, entry.size, entry.ref]),
  });
}

/** True for a name a folder entry may have: no separator, not `.` or `..`, no NUL. */
export function is_safe_name(name: string): boolean {
  return (
    name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0')
  );
}

function corrupt(hash: string, why: string): CheckpointError {
  return new CheckpointError('corrupt', `folder listing ${hash.slice(0, 12)} is damaged: ${why}`);
}

/** Parses a stored folder listing. Throws a `CheckpointError` (`corrupt`) when it is not one. */
export function parse_tree(text: string, hash: string): TreeEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(hash, 'not JSON');
  }
  const body = value as { v?: unknown; e?: unknown };
  if (body.v !== TREE_VERSION || !Array.isArray(body.e)) throw corrupt(hash, 'unknown format');
  const entries: TreeEntry[] = [];
  for (const row of body.e as unknown[]) {
    if (!Array.isArray(row) || row.length !== 5) throw corrupt(hash, 'bad entry');
    const [name, kind, mode, size, ref] = row as [unknown, unknown, unknown, unknown, unknown];
    if (typeof name !== 'string' || !is_safe_name(name)) throw corrupt(hash, 'unsafe name');
    if (kind !== 'f' && kind !== 'l' && kind !== 'd' && kind !== 'x')
      throw corrupt(hash, 'bad kind');
    if (typeof mode !== 'number' || typeof size !== 'number' || typeof ref !== 'string') {
      throw corrupt(hash, 'bad field');
    }
    if ((kind === 'f' || kind === 'd') && !is_hash(ref)) throw corrupt(hash, 'bad reference');
    entries.push({ name, kind, mode: mode & 0o7777, size, ref });
  }
  return entries;
}

const TREE_CACHE_LIMIT = 8192;

/** Reads folder listings from the object store, remembering the recent ones (they never change). */
export class TreeReader {
  readonly #objects: ObjectStore;
  readonly #cache = new Map<string, TreeEntry[]>();

  constructor(objects: ObjectStore) {
    this.#objects = objects;
  }

  /** The entries of tree `hash`, sorted by name. Throws a `CheckpointError` (`corrupt`). */
  read(hash: string): readonly TreeEntry[] {
    const cached = this.#cache.get(hash);
    if (cached !== undefined) return cached;
    const entries = parse_tree(this.#objects.read(hash).toString('utf8'), hash);
    if (this.#cache.size >= TREE_CACHE_LIMIT) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(hash, entries);
    return entries;
  }

  /** Remembers a tree this process just wrote. */
  remember(hash: string, entries: TreeEntry[]): void {
    if (this.#cache.size < TREE_CACHE_LIMIT) this.#cache.set(hash, entries);
  }

  /** Forgets everything (after a prune). */
  forget(): void {
    this.#cache.clear();
  }
}

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError, system_code } from './errors.js';
import { is_hash, tmp_name } from './object_store.js';
import type { StoreLayout } from './store_layout.js';

/**
 * Why a checkpoint was taken: before the first change of a prompt, when a prompt's run ended, just
 * before a rewind (the redo point), just after one, or on request.
 */
export type CheckpointKind =
  | 'before_prompt'
  | 'after_prompt'
  | 'before_rewind'
  | 'after_rewind'
  | 'manual';

const KINDS: ReadonlySet<string> = new Set([
  'before_prompt',
  'after_prompt',
  'before_rewind',
  'after_rewind',
  'manual',
]);

/** One checkpoint: the state of the work folder at one moment. */
export interface CheckpointRecord {
  /** Sortable by time: `20260512T083015123-a1b2c3`. */
  readonly id: string;
  /** ISO 8601. */
  readonly created_at: string;
  readonly kind: CheckpointKind;
  /** The hash of the work folder's tree. */
  readonly tree: string;
  /** The session it belongs to, when it belongs to one. */
  readonly session_id?: string;
  /** A short description (the prompt's first line). */
  readonly label?: string;
  /** For `before_rewind` and `after_rewind`: the checkpoint that was restored. */
  readonly restored?: string;
  /** Files kept and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Files recorded by name only (over the size cap, or unreadable). */
  readonly not_kept: number;
  /** Files whose stat had changed, so they were read again, and their bytes. */
  readonly read_files: number;
  readonly read_bytes: number;
  /** Bytes this checkpoint added to the store (contents are stored deflated when that pays). */
  readonly new_bytes: number;
  /** Excluded paths that were present (dependency folders and the like), up to 50. */
  readonly excluded: readonly string[];
  /** How long taking it took. */
  readonly duration_ms: number;
}

const ID = /^\d{8}T\d{9}-[0-9a-f]{6}$/;

/** True for a string shaped like a checkpoint id. */
export function is_checkpoint_id(value: string): boolean {
  return ID.test(value);
}

let last_ms = 0;

/** A new checkpoint id: the time to the millisecond (increasing within a process), then 6 hex. */
export function new_checkpoint_id(now = Date.now()): string {
  const ms = Math.max(now, last_ms + 1);
  last_ms = ms;
  const stamp = new Date(ms).toISOString().replace(/[-:.Z]/g, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

function record_path(layout: StoreLayout, id: string): string {
  return join(layout.records, `${id}.json`);
}

/** Writes `record` through a temporary file renamed into place: it appears whole or not at all. */
export function write_record(layout: StoreLayout, record: CheckpointRecord): void {
  const tmp = join(layout.tmp, tmp_name());
  try {
    writeFileSync(tmp, `${JSON.stringify(record)}\n`, { flag: 'wx' });
    renameSync(tmp, record_path(layout, record.id));
  } catch (error) {
    rmSync(tmp, { force: true });
    throw new CheckpointError(
      'not_writable',
      `cannot write a checkpoint in ${layout.root}: ${String(error)}`,
      { cause: error },
    );
  }
}

function parse_record(text: string, id: string): CheckpointRecord | undefined {
  let value: Partial<CheckpointRecord>;
  try {
    value = JSON.parse(text) as Partial<CheckpointRecord>;
  } catch {
    return undefined;
  }
  if (value.id !== id || typeof value.tree !== 'string' || !is_hash(value.tree)) return undefined;
  if (typeof value.kind !== 'string' || !KINDS.has(value.kind)) return undefined;
  if (typeof value.created_at !== 'string') return undefined;
  return {
    ...value,
    files: value.files ?? 0,
    bytes: value.bytes ?? 0,
    not_kept: value.not_kept ?? 0,
    read_files: value.read_files ?? 0,
    read_bytes: value.read_bytes ?? 0,
    new_bytes: value.new_bytes ?? 0,
    excluded: Array.isArray(value.excluded) ? value.excluded : [],
    duration_ms: value.duration_ms ?? 0,
  } as CheckpointRecord;
}

/**
 * Reads checkpoint `id`. Throws a `CheckpointError`: `invalid_id` for a malformed id, `not_found`
 * when there is no such checkpoint (never taken, or pruned), `corrupt` when its record is damaged.
 */
export function read_record(layout: StoreLayout, id: string): CheckpointRecord {
  if (!is_checkpoint_id(id))
    throw new CheckpointError('invalid_id', `${JSON.stringify(id)} is not a checkpoint id`);
  let text: string;
  try {
    text = readFileSync(record_path(layout, id), 'utf8');
  } catch (error) {
    if (system_code(error) === 'ENOENT') {
      throw new CheckpointError(
        'not_found',
        `checkpoint ${id} is not in ${layout.root} (never taken, or pruned)`,
      );
    }
    throw new CheckpointError('corrupt', `checkpoint ${id} cannot be read: ${String(error)}`, {
      cause: error,
    });
  }
  const record = parse_record(text, id);
  if (record === undefined)
    throw new CheckpointError('corrupt', `checkpoint ${id} in ${layout.root} is damaged`);
  return record;
}

/** Every readable checkpoint of the store, oldest first. A damaged record is left out. */
export function list_records(layout: StoreLayout): CheckpointRecord[] {
  let names: string[];
  try {
    names = readdirSync(layout.records);
  } catch {
    return [];
  }
  const records: CheckpointRecord[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const id = name.slice(0, -5);
    if (!is_checkpoint_id(id)) continue;
    let text: string;
    try {
      text = readFileSync(join(layout.records, name), 'utf8');
    } catch {
      continue;
    }
    const record = parse_record(text, id);
    if (record !== undefined) records.push(record);
  }
  return records;
}

/** Removes checkpoint `id`'s record (its objects go at the next sweep). */
export function remove_record(layout: StoreLayout, id: string): void {
  rmSync(record_path(layout, id), { force: true });
}

import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CheckpointError, error_text } from './errors.js';
import { compile_excludes, type ExcludeRules } from './exclude_rules.js';
import { type FileChange, summarize_changes } from './file_changes.js';
import { FileIndex, index_identity, load_index, save_index } from './file_index.js';
import { FolderWatch, type WatchScan } from './folder_watch.js';
import { ObjectStore } from './object_store.js';
import { list_objects, type PruneOptions, type PruneResult, prune_store } from './prune.js';
import {
  type CheckpointKind,
  type CheckpointRecord,
  list_records,
  new_checkpoint_id,
  read_record,
  write_record,
} from './records.js';
import { apply_restore } from './restore_apply.js';
import { plan_restore, type SkippedPath } from './restore_plan.js';
import type { RestoreOptions, RestoreResult, StoreUsage } from './restore_types.js';
import { type ScanResult, scan_work_dir } from './scan.js';
import { STORE_FOLDER, type StoreLayout, store_layout } from './store_layout.js';
import { acquire_store_lock, type StoreLock } from './store_lock.js';
import { TreeReader } from './tree.js';
import { diff_trees } from './tree_diff.js';

export type { ConflictChoice, RestoreOptions, RestoreResult, StoreUsage } from './restore_types.js';

/** Files over this size are recorded by name, not kept, unless `max_file_bytes` says otherwise. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** How long a checkpoint waits for another process's checkpoint, restore or prune. */
const DEFAULT_LOCK_TIMEOUT_MS = 60_000;

/** How a store is opened. */
export interface CheckpointStoreOptions {
  /** The folder whose state is recorded. */
  readonly work_dir: string;
  /** Where the store lives; default `<work_dir>/.lich/checkpoints`. */
  readonly store_dir?: string;
  /** More paths to leave out, gitignore-like (see `compile_excludes`). */
  readonly exclude?: readonly string[];
  /** Leave out dependency and cache folders (`node_modules`…); default true. */
  readonly default_excludes?: boolean;
  /** Files larger than this are recorded by name and size, not kept; default 10 MiB. */
  readonly max_file_bytes?: number;
  /** How long to wait for another process holding the store; default 60 s. */
  readonly lock_timeout_ms?: number;
  /**
   * How long after a change a file's stat is not trusted, so it is read again (a second change
   * within one timestamp tick may not show in its stat). Default 2 s, the coarsest file system
   * clock in use (FAT); tests lower it.
   */
  readonly racy_window_ms?: number;
  /**
   * Learn which folders changed from the kernel's file notifications (`FolderWatch`), so that a
   * checkpoint in a process that takes many lists and stats only those; default false. Linux only;
   * folders are watched from the second checkpoint on. `close()` stops it.
   */
  readonly watch?: boolean;
}

/** What a checkpoint is taken for. */
export interface CreateCheckpointOptions {
  readonly kind?: CheckpointKind;
  readonly session_id?: string;
  /** A short description, e.g. the prompt's first line (cut at 200 characters). */
  readonly label?: string;
  readonly signal?: AbortSignal;
}

function trim_label(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  const line = label.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/**
 * The checkpoints of one work folder: a content-addressed store under `.lich/checkpoints/`. Each
 * checkpoint records every file, link and folder of the work folder (modes included) that the
 * exclude rules keep; contents are stored once, however many checkpoints share them.
 *
 * Contract: `create`, `restore` and `prune` hold the store's lock (one at a time, across
 * processes). A checkpoint is written objects first, its record last (renamed into place): a
 * process killed midway leaves the previous checkpoints whole and no record of the interrupted
 * one. Nothing under `.git/` or `.lich/` is ever read or written in the work folder.
 */
export class CheckpointStore {
  /** The work folder, absolute. */
  readonly work_dir: string;
  /** The store folder, absolute. */
  readonly store_dir: string;
  readonly #layout: StoreLayout;
  readonly #rules: ExcludeRules;
  readonly #max_file_bytes: number;
  readonly #lock_timeout_ms: number;
  readonly #racy_window_ms: number | undefined;
  readonly #objects: ObjectStore;
  readonly #trees: TreeReader;
  readonly #watch: FolderWatch | undefined;
  /** The folder hints each scan was made with, for the watch to go on from. */
  readonly #scan_hints = new WeakMap<ScanResult, WatchScan>();
  #index: FileIndex | undefined;
  #prepared = false;

  constructor(options: CheckpointStoreOptions) {
    this.work_dir = resolve(options.work_dir);
    this.store_dir = resolve(options.store_dir ?? join(this.work_dir, STORE_FOLDER));
    this.#layout = store_layout(this.store_dir);
    this.#rules = compile_excludes(options.exclude ?? [], {
      default_excludes: options.default_excludes,
    });
    this.#max_file_bytes = options.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#lock_timeout_ms = options.lock_timeout_ms ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.#racy_window_ms = options.racy_window_ms;
    this.#objects = new ObjectStore(this.#layout);
    this.#trees = new TreeReader(this.#objects);
    this.#watch = options.watch === true ? new FolderWatch(this.work_dir) : undefined;
  }

  /** The folders watched now (0 without `watch`, before the second checkpoint, or off Linux). */
  get watched_folders(): number {
    return this.#watch?.watched ?? 0;
  }

  /** Stops watching the work folder (see `watch`); the store still works, by full walks. */
  close(): void {
    this.#watch?.close();
  }

  /** The exclude rules in force. */
  get rules(): ExcludeRules {
    return this.#rules;
  }

  async #lock(signal: AbortSignal | undefined): Promise<StoreLock> {
    if (!this.#prepared) {
      try {
        for (const dir of [this.#layout.objects, this.#layout.records, this.#layout.tmp]) {
          mkdirSync(dir, { recursive: true });
        }
      } catch (error) {
        throw new CheckpointError(
          'not_writable',
          `cannot create ${this.store_dir}: ${error_text(error)}`,
          { cause: error },
        );
      }
      this.#prepared = true;
    }
    const lock = await acquire_store_lock(this.#layout.lock, {
      timeout_ms: this.#lock_timeout_ms,
      signal,
    });
    // another process may have written the index (or pruned) since this one last looked
    if (this.#index !== undefined && this.#index.identity !== index_identity(this.#layout.index)) {
      this.#index = undefined;
      this.#objects.forget();
      this.#watch?.reset();
    }
    return lock;
  }

  /** A scan of the work folder; `full`: every folder read, whatever the watch knows. */
  async #scan(signal: AbortSignal | undefined, full = false): Promise<ScanResult> {
    this.#index ??= load_index(this.#layout.index);
    const index = this.#index;
    const hints = await this.#watch?.begin(index.dirs.keys(), full);
    const scan = await scan_work_dir({
      work_dir: this.work_dir,
      rules: this.#rules,
      max_file_bytes: this.#max_file_bytes,
      index,
      objects: this.#objects,
      trees: this.#trees,
      racy_window_ms: this.#racy_window_ms,
      ...(hints === undefined ? {} : { hints }),
      signal,
    });
    if (hints !== undefined) this.#scan_hints.set(scan, hints);
    return scan;
  }

  #commit(
    scan: ScanResult,
    started: number,
    options: CreateCheckpointOptions & { restored?: string },
  ): CheckpointRecord {
    const record: CheckpointRecord = {
      id: new_checkpoint_id(),
      created_at: new Date().toISOString(),
      kind: options.kind ?? 'manual',
      tree: scan.tree,
      ...(options.session_id === undefined ? {} : { session_id: options.session_id }),
      ...(options.label === undefined ? {} : { label: trim_label(options.label) }),
      ...(options.restored === undefined ? {} : { restored: options.restored }),
      files: scan.files,
      bytes: scan.bytes,
      not_kept: scan.not_kept,
      read_files: scan.hashed_files,
      read_bytes: scan.hashed_bytes,
      new_bytes: scan.new_bytes,
      excluded: scan.excluded,
      duration_ms: Math.round(performance.now() - started),
    };
    write_record(this.#layout, record);
    this.#save_index(scan);
    return record;
  }

  #save_index(scan: ScanResult): void {
    const previous = this.#index;
    this.#index = scan.index;
    const hints = this.#scan_hints.get(scan);
    if (hints !== undefined) this.#watch?.end(hints, scan.index.dirs, scan.excluded);
    if (!scan.index_changed) return;
    try {
      save_index(this.#layout.index, this.#layout.tmp, scan.index, previous ?? new FileIndex());
    } catch {
      // the index only saves time: without it the next checkpoint reads the files again
      this.#index.identity = undefined;
    }
  }

  /**
   * Records the work folder as it is now. Only files whose stat changed since the last checkpoint
   * are read; a checkpoint of an unchanged folder costs a stat walk and a small record.
   *
   * Contract: rejects with a `CheckpointError`: `no_work_dir`, `not_writable`, `locked`, or
   * `aborted` (nothing recorded).
   */
  async create(options: CreateCheckpointOptions = {}): Promise<CheckpointRecord> {
    const started = performance.now();
    const lock = await this.#lock(options.signal);
    try {
      const scan = await this.#scan(options.signal);
      return this.#commit(scan, started, options);
    } finally {
      lock.release();
    }
  }

  /** Checkpoint `id`. Throws a `CheckpointError`: `invalid_id`, `not_found` or `corrupt`. */
  get(id: string): CheckpointRecord {
    return read_record(this.#layout, id);
  }

  /** The checkpoints of the store, oldest first; with `session_id`, only that session's. */
  list(filter: { session_id?: string } = {}): CheckpointRecord[] {
    const all = list_records(this.#layout);
    return filter.session_id === undefined
      ? all
      : all.filter((r) => r.session_id === filter.session_id);
  }

  /**
   * What changed from checkpoint `from` to checkpoint `to` (`from` undefined: from nothing), one
   * entry per file or link; with `lines`, the lines added and removed in text files.
   *
   * Contract: throws a `CheckpointError` (`not_found`, `invalid_id`, `corrupt`).
   */
  changes(from: string | undefined, to: string, options: { lines?: boolean } = {}): FileChange[] {
    const before = from === undefined ? undefined : this.get(from).tree;
    return summarize_changes(this.#objects, this.#trees, before, this.get(to).tree, options);
  }

  /** The paths (files, links and folders) that differ between checkpoints `from` and `to`. */
  changed_paths(from: string, to: string): string[] {
    return diff_trees(this.#trees, this.get(from).tree, this.get(to).tree).map((d) => d.path);
  }

  /**
   * Puts the work folder back as it was at checkpoint `id`: contents, modes, links, created and
   * removed files and folders. First it takes a checkpoint of the folder as it is (`before`,
   * the redo point), then compares it with `expected`: a path someone else changed that the
   * restore would change is a conflict, handled as `on_conflict` says. Excluded paths (`.git/`,
   * `.lich/`, dependency folders) are never touched; a file recorded by name only is never written
   * nor removed. Modification times are not restored (a restored file is a new change for builds).
   *
   * Contract: rejects with a `CheckpointError` (`not_found`, `invalid_id`, `corrupt`, `locked`,
   * `not_writable`, `aborted`); a path the file system refuses is reported in `skipped`
   * (`failed`), the rest is restored.
   */
  async restore(id: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    const started = performance.now();
    const lock = await this.#lock(options.signal);
    try {
      const target = this.get(id);
      const expected = options.expected === undefined ? undefined : this.get(options.expected);
      // a restore compares with what is there now: every folder read, whatever the watch knows
      const scan = await this.#scan(options.signal, true);
      const foreign = new Set<string>(options.foreign_paths ?? []);
      if (expected !== undefined) {
        for (const difference of diff_trees(this.#trees, expected.tree, scan.tree))
          foreign.add(difference.path);
      }
      const plan = plan_restore({
        trees: this.#trees,
        rules: this.#rules,
        current: scan.tree,
        target: target.tree,
        foreign,
      });
      const choice = options.on_conflict ?? 'stop';
      if (options.dry_run === true || (plan.conflicts.length > 0 && choice === 'stop')) {
        this.#save_index(scan);
        const status = options.dry_run === true ? 'planned' : 'conflicts';
        return {
          status,
          target,
          actions: plan.actions,
          conflicts: plan.conflicts,
          skipped: plan.skipped,
        };
      }
      const meta = { session_id: options.session_id, label: options.label, restored: id };
      const before = this.#commit(scan, started, { ...meta, kind: 'before_rewind' });
      const kept = new Set(choice === 'keep' ? plan.conflicts : []);
      const actions = plan.actions.filter((action) => !kept.has(action.path));
      const skipped: SkippedPath[] = [
        ...plan.skipped,
        ...[...kept].map((path) => ({ path, reason: 'conflict' as const })),
        ...apply_restore(this.work_dir, this.#objects, actions),
      ];
      const failed = new Set(skipped.map((s) => s.path));
      const after_started = performance.now();
      const after = this.#commit(await this.#scan(options.signal, true), after_started, {
        ...meta,
        kind: 'after_rewind',
      });
      return {
        status: 'restored',
        target,
        actions: actions.filter((action) => !failed.has(action.path)),
        conflicts: plan.conflicts,
        skipped,
        before,
        after,
      };
    } finally {
      lock.release();
    }
  }

  /**
   * Removes checkpoints by age (`keep_days`), then the oldest until the store fits in `max_bytes`,
   * never a `protect`ed one, and the objects no checkpoint uses any more.
   *
   * Contract: rejects with a `CheckpointError` (`locked`, `corrupt`).
   */
  async prune(options: PruneOptions & { signal?: AbortSignal } = {}): Promise<PruneResult> {
    const lock = await this.#lock(options.signal);
    try {
      this.#index ??= load_index(this.#layout.index);
      const result = prune_store({
        layout: this.#layout,
        trees: this.#trees,
        records: list_records(this.#layout),
        index: this.#index,
        prune: options,
      });
      if (options.dry_run !== true) {
        this.#objects.forget();
        this.#trees.forget();
        writeFileSync(join(this.store_dir, 'pruned_at'), `${new Date().toISOString()}\n`);
      }
      return result;
    } finally {
      lock.release();
    }
  }

  /**
   * `prune`, unless the store was pruned less than `every_ms` ago (default a day). Resolves with
   * undefined when it did not run.
   */
  async prune_if_due(
    options: PruneOptions & { every_ms?: number; signal?: AbortSignal } = {},
  ): Promise<PruneResult | undefined> {
    const stamp = statSync(join(this.store_dir, 'pruned_at'), { throwIfNoEntry: false });
    const every = options.every_ms ?? 86_400_000;
    if (stamp !== undefined && Date.now() - stamp.mtimeMs < every) return undefined;
    if (stamp === undefined && list_records(this.#layout).length === 0) return undefined;
    return this.prune(options);
  }

  /** What the store holds: its checkpoints, and the objects' count and bytes. */
  usage(): StoreUsage {
    const objects = list_objects(this.#layout);
    return {
      checkpoints: list_records(this.#layout),
      objects: objects.length,
      bytes: objects.reduce((sum, object) => sum + object.bytes, 0),
    };
  }

  /** Removes the whole store (every checkpoint). Never touches the work folder. */
  async remove_all(options: { signal?: AbortSignal } = {}): Promise<void> {
    const lock = await this.#lock(options.signal);
    try {
      for (const name of readdirSync(this.store_dir)) {
        if (name !== 'lock') rmSync(join(this.store_dir, name), { recursive: true, force: true });
      }
      this.#index = undefined;
      this.#objects.forget();
      this.#trees.forget();
      this.#watch?.reset();
      this.#prepared = false;
    } finally {
      lock.release();
    }
  }
}

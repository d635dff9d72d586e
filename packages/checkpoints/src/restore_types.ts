/** What a restore of a `CheckpointStore` is asked, what it answers, and what the store holds. */
import type { CheckpointRecord } from './records.js';
import type { RestoreAction, SkippedPath } from './restore_plan.js';

/** How a restore treats a path someone else changed. */
export type ConflictChoice = 'stop' | 'overwrite' | 'keep';

/** What a restore is asked to do. */
export interface RestoreOptions {
  /** Work out what would change and the conflicts; change nothing. */
  readonly dry_run?: boolean;
  /**
   * The checkpoint the caller expects the work folder to match (what the agent left): a path that
   * differs from it now was changed by someone else.
   */
  readonly expected?: string;
  /** More paths known to have been changed by someone else (e.g. between two prompts). */
  readonly foreign_paths?: Iterable<string>;
  /**
   * `stop` (default): when a path the restore would change was changed by someone else, change
   * nothing and report the conflicts. `overwrite`: restore them too (the redo checkpoint keeps
   * what they were). `keep`: restore everything else and leave them as they are.
   */
  readonly on_conflict?: ConflictChoice;
  readonly session_id?: string;
  readonly label?: string;
  readonly signal?: AbortSignal;
}

/** What a restore did, or would do. */
export interface RestoreResult {
  /** `planned` for a dry run, `conflicts` when it stopped before changing anything. */
  readonly status: 'planned' | 'conflicts' | 'restored';
  /** The checkpoint restored. */
  readonly target: CheckpointRecord;
  /** The steps taken (or planned), without the skipped ones. */
  readonly actions: RestoreAction[];
  /** Paths someone else changed that the restore would change. */
  readonly conflicts: string[];
  /** Paths left as they are, and why. */
  readonly skipped: SkippedPath[];
  /** The checkpoint taken just before restoring: restoring it is the redo. */
  readonly before?: CheckpointRecord;
  /** The checkpoint taken just after restoring. */
  readonly after?: CheckpointRecord;
}

/** What the store holds. */
export interface StoreUsage {
  /** Oldest first. */
  readonly checkpoints: CheckpointRecord[];
  readonly objects: number;
  /** The bytes of all objects (shared ones counted once). */
  readonly bytes: number;
}

/**
 * `@lich/checkpoints`: content-addressed snapshots of a work folder under `.lich/checkpoints/`,
 * taken before an agent changes anything, and restored (with conflict checks and redo) on rewind.
 * Node's `fs` only; no git needed.
 */

export {
  CheckpointStore,
  type CheckpointStoreOptions,
  type ConflictChoice,
  type CreateCheckpointOptions,
  DEFAULT_MAX_FILE_BYTES,
  type RestoreOptions,
  type RestoreResult,
  type StoreUsage,
} from './checkpoint_store.js';
export { CheckpointError, type CheckpointErrorCode } from './errors.js';
export {
  ALWAYS_EXCLUDED,
  CACHEDIR_TAG_SIGNATURE,
  compile_excludes,
  DEFAULT_EXCLUDES,
  type ExcludeRules,
} from './exclude_rules.js';
export {
  type FileChange,
  type FileChangeStatus,
  type FileKind,
  summarize_changes,
} from './file_changes.js';
export { count_line_changes, type LineCounts } from './line_counts.js';
export type { PruneOptions, PruneResult } from './prune.js';
export {
  type CheckpointKind,
  type CheckpointRecord,
  is_checkpoint_id,
} from './records.js';
export type {
  RestoreAction,
  RestoreActionKind,
  SkippedPath,
  SkipReason,
} from './restore_plan.js';
export { STORE_FOLDER } from './store_layout.js';
export type { EntryKind } from './tree.js';

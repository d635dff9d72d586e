import { CheckpointStore } from '@lich/checkpoints';
import type { AgentConfig } from '../config/config_schema.js';

/**
 * The checkpoint store of `config`'s work dir (`.lich/checkpoints`), opened with its
 * `checkpoints` settings, or null when checkpoints are off. No I/O until it is used.
 */
export function checkpoint_store_of(config: AgentConfig): CheckpointStore | null {
  const settings = config.checkpoints;
  if (!settings.enabled) return null;
  return new CheckpointStore({
    work_dir: config.work_dir,
    exclude: settings.exclude,
    default_excludes: settings.default_excludes,
    max_file_bytes: Math.round(settings.max_file_mb * 1024 * 1024),
  });
}

/**
 * Prune options for `config`: checkpoints older than `keep_days`, then the oldest until the store
 * fits in `max_mb`, never those of a session a live process holds open.
 */
export function prune_options(config: AgentConfig, is_open: (session_id: string) => boolean) {
  const { keep_days, max_mb } = config.checkpoints;
  return {
    keep_days,
    max_bytes: max_mb * 1024 * 1024,
    protect: (record: { session_id?: string }) =>
      record.session_id !== undefined && is_open(record.session_id),
  };
}

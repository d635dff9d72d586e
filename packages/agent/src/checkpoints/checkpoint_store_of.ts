import { sep } from 'node:path';
import { CheckpointStore } from '@lich/checkpoints';
import { path_inside } from '@lich/tools';
import type { AgentConfig } from '../config/config_schema.js';

/**
 * The session folder as an exclude pattern, when it lies in the work dir outside `.lich/`: a
 * rewind must never put a session file back (its writer holds it open).
 */
function session_dir_pattern(config: AgentConfig): string[] {
  const rel = path_inside(config.work_dir, config.session_dir);
  if (rel === null || rel === '') return [];
  const path = rel.split(sep).join('/');
  return path === '.lich' || path.startsWith('.lich/') ? [] : [`/${path}/`];
}

/**
 * The checkpoint store of `config`'s work dir (`.lich/checkpoints`), opened with its
 * `checkpoints` settings, or null when checkpoints are off. The session folder is left out when
 * it lies in the work dir. No I/O until it is used.
 */
export function checkpoint_store_of(config: AgentConfig): CheckpointStore | null {
  const settings = config.checkpoints;
  if (!settings.enabled) return null;
  return new CheckpointStore({
    work_dir: config.work_dir,
    exclude: [...settings.exclude, ...session_dir_pattern(config)],
    default_excludes: settings.default_excludes,
    max_file_bytes: Math.round(settings.max_file_mb * 1024 * 1024),
    watch: settings.watch,
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

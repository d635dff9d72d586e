import { resolve } from 'node:path';
import { SessionStore } from '@lich/session';
import type { AgentConfig } from './config/config_schema.js';

/**
 * The JSONL session store of a config. When the session dir is the default one
 * (`<work_dir>/.lich/sessions`), it is confined to the work dir: a repository that ships `.lich`
 * or `.lich/sessions` as a link to a folder outside gets no transcript written there (the store
 * refuses with `not_writable`, and runs go on unrecorded with a warning). A session dir set
 * elsewhere is where the user said transcripts go, links and all.
 */
export function session_store_of(
  config: Pick<AgentConfig, 'session_dir' | 'work_dir'>,
): SessionStore {
  const derived = resolve(config.work_dir, '.lich', 'sessions') === resolve(config.session_dir);
  return new SessionStore({
    session_dir: config.session_dir,
    ...(derived ? { confined_to: config.work_dir } : {}),
  });
}

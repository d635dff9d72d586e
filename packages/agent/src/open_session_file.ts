import type { SessionHandle } from '@lich/session';
import type { AgentConfig } from './config/config_schema.js';
import { own_version } from './own_version.js';
import { session_store_of } from './session_store_of.js';
import { remember_session_dir } from './usage/known_session_dirs.js';

/** How a session file is opened. */
export interface OpenSessionFileOptions {
  /** The session a subagent's file belongs to. */
  parent_session_id?: string;
  /** The registry of known session dirs, which learns `session_dir` (see `AgentOptions`). */
  session_registry?: string;
  /** The version written into the file; this package's when absent. */
  lich_version?: string;
  on_warning: (text: string) => void;
}

/**
 * Opens a new session file under the config's `session_dir` (`session_store_of`), for the first
 * provider's model. Best-effort: resolves with null after a warning when it cannot be created;
 * never rejects.
 */
export async function open_session_file(
  config: Pick<AgentConfig, 'session_dir' | 'work_dir' | 'providers'>,
  options: OpenSessionFileOptions,
): Promise<SessionHandle | null> {
  try {
    const store = session_store_of(config);
    const registry = options.session_registry;
    if (registry !== undefined) await remember_session_dir(registry, config.session_dir);
    return await store.create({
      ...(options.parent_session_id === undefined
        ? {}
        : { parent_session_id: options.parent_session_id }),
      work_dir: config.work_dir,
      model: config.providers[0]?.model ?? 'unknown',
      lich_version: options.lich_version ?? (await own_version()),
    });
  } catch (error) {
    options.on_warning(
      `the run is not recorded: ${error instanceof Error ? error.message : error}`,
    );
    return null;
  }
}

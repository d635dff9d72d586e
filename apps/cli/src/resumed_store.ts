import type { AgentConfig } from '@lich/agent';
import type { SessionStore, SessionSummary } from '@lich/session';
import type { CommandContext } from './context.js';
import { short_id } from './session_ids.js';

/**
 * The store a resumed session is opened from: the config's own (held to the work dir as new
 * sessions are) when the session is in its folder, else one over the folder of the file named.
 */
export async function resumed_store(
  config: Pick<AgentConfig, 'session_dir' | 'work_dir'>,
  summary: SessionSummary,
): Promise<SessionStore> {
  const { SessionStore } = await import('@lich/session');
  const { dirname, resolve } = await import('node:path');
  const { session_store_of } = await import('@lich/agent');
  return dirname(summary.path) === resolve(config.session_dir)
    ? session_store_of(config)
    : new SessionStore({ session_dir: dirname(summary.path) });
}

/** Says which session goes on, and with how many messages. */
export function say_resumed(context: CommandContext, session_id: string, messages: number): void {
  context.say(context.err.dim(`resumed session ${short_id(session_id)} (${messages} messages)`));
}

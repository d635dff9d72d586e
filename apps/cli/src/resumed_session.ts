import type { AgentConfig } from '@lich/agent';
import type { SessionStore, SessionSummary } from '@lich/session';
import type { CommandContext } from './context.js';
import { resolve_session, short_id } from './session_ids.js';

/**
 * The session `given` names (`--resume`, `-c`: an id, a prefix, a file's path; see
 * `resolve_session`) and the store it is opened from: the config's own (held to the work dir as
 * new sessions are) when the session is in its folder, else one over the folder of the file
 * named. Rejects with a `UsageError` naming `command` when no session (or several) match.
 */
export async function resumed_session(
  context: CommandContext,
  config: Pick<AgentConfig, 'session_dir' | 'work_dir'>,
  given: string,
  command: string,
): Promise<{ summary: SessionSummary; store: SessionStore }> {
  const summary = await resolve_session(config.session_dir, given, command, context.io.cwd);
  const { SessionStore } = await import('@lich/session');
  const { dirname, resolve } = await import('node:path');
  const { session_store_of } = await import('@lich/agent');
  const store =
    dirname(summary.path) === resolve(config.session_dir)
      ? session_store_of(config)
      : new SessionStore({ session_dir: dirname(summary.path) });
  return { summary, store };
}

/** Says which session goes on, and with how many messages. */
export function say_resumed(context: CommandContext, session_id: string, messages: number): void {
  context.say(context.err.dim(`resumed session ${short_id(session_id)} (${messages} messages)`));
}

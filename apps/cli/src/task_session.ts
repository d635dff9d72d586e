import type { Agent } from '@lich/agent';
import type { Message } from '@lich/core';
import type { SessionHandle } from '@lich/session';
import type { CommandContext } from './context.js';
import { resumed_session, say_resumed } from './resumed_session.js';
import { reading_session } from './session_ids.js';

/**
 * Opens the session a one-shot task (`lich "task"`, `lich sessions resume <id> "task"`) records
 * into: the resumed one (with its history, pictures read back, said with its count of messages),
 * a new one, or none. Rejects with a `UsageError` for a session it cannot find, and with the
 * `lich sessions repair` advice for a damaged file.
 */
export async function open_task_session(
  context: CommandContext,
  agent: Agent,
  options: { resume?: string; no_session: boolean; command: string },
): Promise<{ session: SessionHandle | null; history: Message[] }> {
  if (options.resume !== undefined) {
    const { summary, store } = await resumed_session(
      context,
      agent.config,
      options.resume,
      options.command,
    );
    const { conversation_of } = await import('@lich/session');
    const session = await reading_session(summary, () => store.open(summary.id));
    // pictures are kept by hash beside the transcript: read their bytes back
    const history = (await store.load_images(conversation_of(session.state))).filter(
      (message) => message.role !== 'system',
    );
    say_resumed(context, summary.id, history.length);
    return { session, history };
  }
  if (options.no_session) return { session: null, history: [] };
  return { session: await agent.create_session(), history: [] };
}

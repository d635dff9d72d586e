import type { SessionHost } from '@lich/agent';
import type { InboundMessage } from './inbound_message.js';

const COMMAND = /^\/([A-Za-z][\w:-]*)(?:\s+([\s\S]*))?$/;

/**
 * The prompt of a custom command sent as a chat message (`/review src/app.ts`): when the batch is
 * one message naming a command of the session that makes a prompt (`CommandResult.prompt`), that
 * prompt; otherwise undefined, and the message goes to the model as written. Never rejects: a
 * command that fails leaves the message as written.
 */
export async function command_prompt(
  host: SessionHost,
  session_id: string,
  batch: readonly InboundMessage[],
): Promise<string | undefined> {
  if (batch.length !== 1) return undefined;
  const match = COMMAND.exec((batch[0] as InboundMessage).text.trim());
  if (match === null) return undefined;
  const name = (match[1] as string).toLowerCase();
  if (!host.commands(session_id).some((command) => command.name === name)) return undefined;
  try {
    const result = await host.run_command(session_id, name, (match[2] ?? '').trim());
    return result.prompt;
  } catch {
    return undefined;
  }
}

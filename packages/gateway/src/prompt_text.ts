import type { InboundMessage } from './inbound_message.js';

function one_message(message: InboundMessage): string {
  const lines = [
    message.is_direct
      ? message.text
      : `[${message.sender.name || message.sender.id}] ${message.text}`,
  ];
  for (const attachment of message.attachments) {
    const where = attachment.url ?? attachment.file_id ?? '';
    const name = attachment.name === undefined ? '' : ` ${attachment.name}`;
    lines.push(`[${attachment.kind}${name}${where === '' ? '' : `: ${where}`}]`);
  }
  return lines.join('\n');
}

/**
 * The prompt for one or more messages of a conversation (several when `collect` merged them).
 *
 * Contract: a direct message is its text as written; in a group each message starts with
 * `[<sender name>] ` so the model can tell the speakers apart; attachments follow their message as
 * `[<kind> <name>: <url or file id>]` lines; several messages are joined by blank lines, in order.
 */
export function prompt_text(messages: readonly InboundMessage[]): string {
  return messages.map(one_message).join('\n\n');
}

import { type GatewayAdapter, target_of } from './adapter.js';
import type { AttachmentIntake } from './attachment_intake.js';
import type { GatewayLogEntry } from './gateway_log.js';
import type { GatewayTexts } from './gateway_texts.js';
import type { InboundMessage } from './inbound_message.js';

/** What `take_attachments` needs of the bus. */
export interface TakeAttachmentsOptions {
  adapter: GatewayAdapter;
  texts: GatewayTexts;
  log: (entry: GatewayLogEntry) => void;
  signal: AbortSignal;
}

/**
 * A let-in message with its attachments taken in by the adapter (`take_attachments`): pictures
 * join its `images`, the attachments list keeps only what the adapter kept, and the sender is told (best effort, as a
 * reply to it) what was refused and why. `refused` instead when nothing is left to answer: no
 * text, no picture, no attachment kept.
 *
 * Contract: never throws; a message without attachments, or an adapter without the hook, comes
 * back as it is; an adapter that throws counts as refusing every attachment.
 */
export async function take_attachments(
  message: InboundMessage,
  options: TakeAttachmentsOptions,
): Promise<{ message: InboundMessage } | { refused: string }> {
  const { adapter } = options;
  if (message.attachments.length === 0 || adapter.take_attachments === undefined) {
    return { message };
  }
  let intake: AttachmentIntake;
  try {
    intake = await adapter.take_attachments(message, options.signal);
  } catch (error) {
    options.log({
      level: 'warn',
      message: `attachments of ${message.platform_message_id} could not be taken: ${String(error)}`,
      conversation_key: message.conversation_key,
    });
    intake = {
      images: [],
      refused: [{ what: 'the attachment', why: 'it could not be downloaded' }],
    };
  }
  const images = [...(message.images ?? []), ...intake.images];
  const taken: InboundMessage = { ...message, attachments: intake.kept ?? [] };
  if (images.length > 0) taken.images = images;
  else delete taken.images;
  if (intake.refused.length > 0) {
    options.log({
      level: 'info',
      message: `attachments refused: ${intake.refused.map(({ what, why }) => `${what} (${why})`).join(', ')}`,
      conversation_key: message.conversation_key,
    });
    const notice = options.texts.attachments_refused(intake.refused);
    await adapter
      .notify(target_of(message), notice, message.platform_message_id)
      .catch(() => undefined);
    if (taken.text.trim() === '' && images.length === 0 && taken.attachments.length === 0) {
      return { refused: intake.refused.map(({ what, why }) => `${what}: ${why}`).join('; ') };
    }
  }
  return { message: taken };
}

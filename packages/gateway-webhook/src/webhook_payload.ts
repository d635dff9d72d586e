import { conversation_key_of, type InboundMessage } from '@lich/gateway';

/** The platform name of this adapter. */
export const WEBHOOK_PLATFORM = 'webhook';

/**
 * The JSON body a sender POSTs. Only `chat_id`, `sender.id` and `text` are required.
 *
 * ```json
 * { "chat_id": "support-42", "sender": { "id": "u1", "name": "Ann" }, "text": "Hello",
 *   "message_id": "optional, default: the webhook-id", "is_direct": true, "mentions_bot": false,
 *   "reply_to": { "message_id": "b7", "to_bot": true }, "attachments": [{ "kind": "image", "url": "…" }] }
 * ```
 */
export interface WebhookPayload {
  chat_id: string;
  sender: { id: string; name?: string; is_bot?: boolean };
  text: string;
  message_id?: string;
  is_direct?: boolean;
  mentions_bot?: boolean;
  reply_to?: { message_id: string; to_bot?: boolean } | null;
  attachments?: { kind: string; url?: string; name?: string; mime_type?: string }[];
}

/** What parsing a body found: the message, or why it is not one (for a 400). */
export type ParsedPayload = { ok: true; message: InboundMessage } | { ok: false; error: string };

const ID = /^[\w.:@/+=-]{1,200}$/;

function is_object(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns a verified JSON body into an `InboundMessage` of platform `webhook`.
 *
 * Contract: never throws; ids (`chat_id`, `sender.id`, `message_id`, `reply_to.message_id`) are
 * 1–200 characters of `[A-Za-z0-9_.:@/+=-]`; `text` is a string of at most `max_text_chars`;
 * `is_direct` defaults to true; `message_id` defaults to the `webhook-id`, so a sender that
 * retries one delivery is deduplicated either way.
 */
export function parse_payload(
  value: unknown,
  context: { webhook_id: string; account: string; max_text_chars: number; now?: number },
): ParsedPayload {
  if (!is_object(value)) return { ok: false, error: 'the body must be a JSON object' };
  const { chat_id, sender, text } = value;
  if (typeof chat_id !== 'string' || !ID.test(chat_id)) {
    return { ok: false, error: 'chat_id must be an id string' };
  }
  if (!is_object(sender) || typeof sender.id !== 'string' || !ID.test(sender.id)) {
    return { ok: false, error: 'sender.id must be an id string' };
  }
  if (typeof text !== 'string') return { ok: false, error: 'text must be a string' };
  if (text.length > context.max_text_chars) {
    return { ok: false, error: `text is longer than ${context.max_text_chars} characters` };
  }
  const message_id = value.message_id ?? context.webhook_id;
  if (typeof message_id !== 'string' || !ID.test(message_id)) {
    return { ok: false, error: 'message_id must be an id string' };
  }
  let reply_to: InboundMessage['reply_to'] = null;
  if (is_object(value.reply_to)) {
    const replied = value.reply_to.message_id;
    if (typeof replied !== 'string' || !ID.test(replied)) {
      return { ok: false, error: 'reply_to.message_id must be an id string' };
    }
    reply_to = { platform_message_id: replied, to_bot: value.reply_to.to_bot === true };
  }
  const attachments: InboundMessage['attachments'] = [];
  if (Array.isArray(value.attachments)) {
    for (const item of value.attachments) {
      if (!is_object(item) || typeof item.kind !== 'string') {
        return { ok: false, error: 'each attachment needs a kind' };
      }
      attachments.push({
        kind: item.kind,
        ...(typeof item.url === 'string' ? { url: item.url } : {}),
        ...(typeof item.name === 'string' ? { name: item.name } : {}),
        ...(typeof item.mime_type === 'string' ? { mime_type: item.mime_type } : {}),
      });
    }
  }
  return {
    ok: true,
    message: {
      platform: WEBHOOK_PLATFORM,
      account: context.account,
      chat_id,
      conversation_key: conversation_key_of(WEBHOOK_PLATFORM, chat_id),
      sender: {
        id: sender.id,
        name: typeof sender.name === 'string' ? sender.name.slice(0, 200) : '',
        is_bot: sender.is_bot === true,
      },
      is_direct: value.is_direct !== false,
      mentions_bot: value.mentions_bot === true,
      text,
      attachments,
      platform_message_id: message_id,
      reply_to,
      sent_at: context.now ?? Date.now(),
    },
  };
}

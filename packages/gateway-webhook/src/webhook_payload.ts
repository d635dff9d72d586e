import {
  conversation_key_of,
  host_in_list,
  type ImagePart,
  type InboundMessage,
  image_from_base64,
  image_media_type,
} from '@lich/gateway';

/** The platform name of this adapter. */
export const WEBHOOK_PLATFORM = 'webhook';

/**
 * The JSON body a sender POSTs. Only `chat_id`, `sender.id` and `text` are required.
 *
 * ```json
 * { "chat_id": "support-42", "sender": { "id": "u1", "name": "Ann" }, "text": "Hello",
 *   "message_id": "optional, default: the webhook-id", "is_direct": true, "mentions_bot": false,
 *   "reply_to": { "message_id": "b7", "to_bot": true }, "attachments": [{ "kind": "file", "url": "…" }],
 *   "images": [{ "media_type": "image/png", "data": "<base64>", "name": "shot.png" },
 *              { "url": "https://images.example.com/a.jpg" }] }
 * ```
 *
 * `attachments` reach the model as `[<kind>: <url>]` lines and are never fetched; pictures go in
 * `images` (see `parse_payload`).
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
  /** Pictures: base64 bytes, or a URL on the operator's `image_url_hosts`. */
  images?: ({ media_type: string; data: string; name?: string } | WebhookImageUrl)[];
}

/** A picture given by URL, fetched after the message is let in (see `fetch_public_image`). */
export interface WebhookImageUrl {
  url: string;
  media_type?: string;
  name?: string;
}

/** The attachment kind of a picture given by URL, for the adapter's `take_attachments`. */
export const IMAGE_URL_KIND = 'image_url';

/** What `parse_payload` checks pictures against. */
export interface PayloadImageRules {
  /** The largest picture, in bytes decoded. */
  max_image_bytes: number;
  /** Hosts pictures may be fetched from by URL; empty: URLs are refused. */
  image_url_hosts: readonly string[];
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
 * retries one delivery is deduplicated either way. Each of `images` is either base64 `data` with
 * its `media_type` (PNG, JPEG, GIF or WebP, matching the bytes, within `max_image_bytes`: checked
 * here), or a `url` whose host is on `image_url_hosts` (http or https; fetched only once the
 * message is let in, and refused then if the name resolves to an internal address). With no
 * `images` rules, any `images` is refused.
 */
export function parse_payload(
  value: unknown,
  context: {
    webhook_id: string;
    account: string;
    max_text_chars: number;
    now?: number;
    images?: PayloadImageRules;
  },
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
  const pictures = read_images(value.images, context.images);
  if (!pictures.ok) return pictures;
  attachments.push(...pictures.urls);
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
      ...(pictures.images.length === 0 ? {} : { images: pictures.images }),
      platform_message_id: message_id,
      reply_to,
      sent_at: context.now ?? Date.now(),
    },
  };
}

function read_images(
  value: unknown,
  rules: PayloadImageRules | undefined,
):
  | { ok: true; images: ImagePart[]; urls: InboundMessage['attachments'] }
  | { ok: false; error: string } {
  const images: ImagePart[] = [];
  const urls: InboundMessage['attachments'] = [];
  if (value === undefined) return { ok: true, images, urls };
  if (!Array.isArray(value)) return { ok: false, error: 'images must be a list' };
  for (const [index, item] of value.entries()) {
    const at = `images[${index}]`;
    if (!is_object(item)) return { ok: false, error: `${at} must be an object` };
    if (rules === undefined) return { ok: false, error: 'pictures are not taken here' };
    const name = typeof item.name === 'string' ? item.name.slice(0, 200) : undefined;
    if (typeof item.data === 'string') {
      if (typeof item.media_type !== 'string') {
        return { ok: false, error: `${at}: media_type is needed with data` };
      }
      const taken = image_from_base64(item.data, {
        max_bytes: rules.max_image_bytes,
        media_type: item.media_type,
        ...(name === undefined ? {} : { name }),
      });
      if (!taken.ok) return { ok: false, error: `${at}: ${taken.error}` };
      images.push(taken.image);
      continue;
    }
    if (typeof item.url !== 'string') {
      return { ok: false, error: `${at} needs data (base64, with media_type) or a url` };
    }
    if (rules.image_url_hosts.length === 0) {
      return {
        ok: false,
        error: `${at}: pictures are not fetched from URLs here; send them as base64 data`,
      };
    }
    let url: URL;
    try {
      url = new URL(item.url);
    } catch {
      return { ok: false, error: `${at}: url is not a URL` };
    }
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      !host_in_list(host, rules.image_url_hosts)
    ) {
      return { ok: false, error: `${at}: pictures are not fetched from ${host || item.url}` };
    }
    if (
      item.media_type !== undefined &&
      (typeof item.media_type !== 'string' || image_media_type(item.media_type) === undefined)
    ) {
      return {
        ok: false,
        error: `${at}: ${JSON.stringify(item.media_type)} is not a picture type taken (image/png, image/jpeg, image/gif, image/webp)`,
      };
    }
    urls.push({
      kind: IMAGE_URL_KIND,
      url: item.url,
      ...(name === undefined ? {} : { name }),
      ...(typeof item.media_type === 'string' ? { mime_type: item.media_type } : {}),
    });
  }
  return { ok: true, images, urls };
}

import {
  type Attachment,
  conversation_key_of,
  DEFAULT_MAX_IMAGE_BYTES,
  type InboundMessage,
} from '@lich/gateway';

/** The platform name, as in `lich gateway telegram`. */
export const TELEGRAM_PLATFORM = 'telegram';

/** The Bot API's message, only the fields read here. */
export interface TelegramMessage {
  message_id: number;
  date: number;
  chat: { id: number; type: 'private' | 'group' | 'supergroup' | 'channel'; title?: string };
  from?: {
    id: number;
    is_bot: boolean;
    first_name?: string;
    last_name?: string;
    username?: string;
  };
  text?: string;
  caption?: string;
  entities?: TelegramRawEntity[];
  caption_entities?: TelegramRawEntity[];
  photo?: { file_id: string; width: number; height: number; file_size?: number }[];
  document?: { file_id: string; file_name?: string; mime_type?: string; file_size?: number };
  voice?: TelegramFile;
  audio?: TelegramFile;
  video?: TelegramFile;
  video_note?: TelegramFile;
  animation?: TelegramFile;
  sticker?: TelegramFile;
  reply_to_message?: { message_id: number; from?: { id: number } };
  message_thread_id?: number;
  is_topic_message?: boolean;
}

/** A file of a kind Lich does not take (a voice message, a sticker): only that it is there. */
interface TelegramFile {
  file_id: string;
  file_size?: number;
}

/** The kinds of file a message may carry besides photos and documents, as Telegram names them. */
const OTHER_FILES = ['voice', 'audio', 'video', 'video_note', 'animation', 'sticker'] as const;

/** An entity as Telegram sends it with a message. */
export interface TelegramRawEntity {
  type: string;
  offset: number;
  length: number;
  user?: { id: number };
}

/** Who the bot is (from getMe). */
export interface TelegramBotIdentity {
  id: number;
  username: string;
}

/**
 * The chat id of a message's conversation: the chat, or `<chat>:<topic>` for a forum topic, which
 * is its own conversation.
 */
export function telegram_chat_id(message: TelegramMessage): string {
  return message.is_topic_message === true && message.message_thread_id !== undefined
    ? `${message.chat.id}:${message.message_thread_id}`
    : String(message.chat.id);
}

/** Splits a `telegram_chat_id` back into the chat and the forum topic. */
export function split_chat_id(chat_id: string): { chat_id: string; thread_id?: number } {
  const [chat, topic] = chat_id.split(':');
  return topic === undefined
    ? { chat_id: chat as string }
    : { chat_id: chat as string, thread_id: Number(topic) };
}

function mentions(
  text: string,
  entities: readonly TelegramRawEntity[],
  bot: TelegramBotIdentity,
): boolean {
  const handle = `@${bot.username}`.toLowerCase();
  return entities.some((entity) => {
    const span = text.slice(entity.offset, entity.offset + entity.length).toLowerCase();
    if (entity.type === 'mention') return span === handle;
    if (entity.type === 'text_mention') return entity.user?.id === bot.id;
    if (entity.type === 'bot_command') return span.endsWith(handle);
    return false;
  });
}

/**
 * The largest size of a photo within `max_bytes` (a size of unknown bytes counts as within), else
 * the smallest, which is then refused as too large.
 */
function photo_size(
  sizes: NonNullable<TelegramMessage['photo']>,
  max_bytes: number,
): NonNullable<TelegramMessage['photo']>[number] | undefined {
  const by_area = [...sizes].sort((a, b) => a.width * a.height - b.width * b.height);
  const fitting = by_area.filter((size) => (size.file_size ?? 0) <= max_bytes);
  return fitting.at(-1) ?? by_area[0];
}

function attachments_of(message: TelegramMessage, max_image_bytes: number): Attachment[] {
  const found: Attachment[] = [];
  const photo =
    message.photo === undefined ? undefined : photo_size(message.photo, max_image_bytes);
  if (photo !== undefined) {
    // Telegram sends photos as JPEG; the bytes say what they are, so no type is claimed here
    found.push({
      kind: 'image',
      file_id: photo.file_id,
      ...(photo.file_size === undefined ? {} : { size_bytes: photo.file_size }),
    });
  }
  const document = message.document;
  if (document !== undefined) {
    found.push({
      kind: document.mime_type?.startsWith('image/') ? 'image' : 'document',
      file_id: document.file_id,
      ...(document.file_name === undefined ? {} : { name: document.file_name }),
      ...(document.mime_type === undefined ? {} : { mime_type: document.mime_type }),
      ...(document.file_size === undefined ? {} : { size_bytes: document.file_size }),
    });
  }
  for (const kind of OTHER_FILES) {
    const file = message[kind];
    if (file !== undefined) found.push({ kind, file_id: file.file_id });
  }
  return found;
}

/**
 * The envelope of one Telegram message, or null for what is not a person's message (no sender,
 * a channel post, nothing to say). Attachments: the largest size of a photo within
 * `max_image_bytes` (default 10 MiB), an image document, and any other file (a document, a voice
 * message, a sticker…) by its kind, for the adapter to refuse. Contract: `platform_message_id` is `<chat>:<message_id>`
 * (Telegram's ids are per chat); a caption is the text; a mention of the bot's handle, a text
 * mention of it or a command addressed to it sets `mentions_bot`; a reply to the bot sets
 * `reply_to.to_bot`.
 */
export function to_inbound(
  message: TelegramMessage,
  bot: TelegramBotIdentity,
  options: { max_image_bytes?: number } = {},
): InboundMessage | null {
  const from = message.from;
  if (from === undefined || message.chat.type === 'channel') return null;
  const text = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const attachments = attachments_of(message, options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES);
  if (text === '' && attachments.length === 0) return null;
  const chat_id = telegram_chat_id(message);
  const reply = message.reply_to_message;
  // In a forum topic every message "replies" to the topic's first message; that is no reply.
  const is_topic_root =
    message.is_topic_message === true && reply?.message_id === message.message_thread_id;
  return {
    platform: TELEGRAM_PLATFORM,
    account: String(bot.id),
    chat_id,
    // a forum topic is its own conversation, and belongs to its group for the access policy
    ...(chat_id === String(message.chat.id) ? {} : { group_id: String(message.chat.id) }),
    conversation_key: conversation_key_of(TELEGRAM_PLATFORM, chat_id),
    sender: {
      id: String(from.id),
      name: [from.first_name, from.last_name].filter(Boolean).join(' ') || (from.username ?? ''),
      is_bot: from.is_bot,
    },
    is_direct: message.chat.type === 'private',
    mentions_bot: mentions(text, entities, bot),
    text,
    attachments,
    platform_message_id: `${message.chat.id}:${message.message_id}`,
    reply_to:
      reply === undefined || is_topic_root
        ? null
        : {
            platform_message_id: `${message.chat.id}:${reply.message_id}`,
            to_bot: reply.from?.id === bot.id,
          },
    sent_at: message.date * 1000,
  };
}

/** True for `/start` or `/help` (optionally addressed `@bot`); which one, or null. */
export function local_command(text: string, bot: TelegramBotIdentity): 'start' | 'help' | null {
  const match = /^\/(start|help)(?:@(\w+))?(?:\s|$)/i.exec(text.trim());
  if (match === null) return null;
  if (match[2] !== undefined && match[2].toLowerCase() !== bot.username.toLowerCase()) return null;
  return (match[1] as string).toLowerCase() as 'start' | 'help';
}

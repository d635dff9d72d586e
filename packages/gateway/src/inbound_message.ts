/**
 * The envelope every platform message becomes before the bus sees it. Adapters build it; nothing
 * past the adapter knows a platform's wire format.
 */
import type { ImagePart } from '@lich/core';

/** Who sent a message. */
export interface Sender {
  /** The platform's stable user id (never a display name: names change and collide). */
  id: string;
  /** A display name, for logs and for the model; may be empty. */
  name: string;
  /** True for bots (and the bot itself): their messages are ignored. */
  is_bot: boolean;
  /**
   * The sender's roles in this chat, as the platform reports them (Twitch badges: `broadcaster`,
   * `moderator`, `vip`). A role in the policy's `allow_roles` lets the sender in where only
   * allowed senders are answered; absent means none.
   */
  roles?: readonly string[];
}

/** A file that came with a message. */
export interface Attachment {
  /** `image`, `document`, `audio`, `video`, or another word the adapter uses. */
  kind: string;
  /** Where the bytes can be fetched, when the platform gives a URL. */
  url?: string;
  /** The platform's file id, when it has one instead of a URL. */
  file_id?: string;
  name?: string;
  mime_type?: string;
  size_bytes?: number;
}

/** The message this one answers, when it is a reply. */
export interface ReplyRef {
  platform_message_id: string;
  /** True when the message replied to is the bot's: in a group, that counts as addressing it. */
  to_bot: boolean;
}

/**
 * One platform message, platform-neutral.
 *
 * Contract (what an adapter guarantees when it builds one):
 * - `conversation_key` is `<platform>:<chat_id>` (see `conversation_key_of`); a thread or topic
 *   that is its own conversation puts its id into `chat_id` (`<chat>:<topic>`);
 * - `platform_message_id` is unique per platform account and stable across the platform's
 *   redeliveries, so the bus can drop a message it has seen;
 * - `text` is what the person wrote (captions included), with the bot's own mention left in.
 */
export interface InboundMessage {
  /** `webhook`, `telegram`, `discord`, `twitch`… */
  platform: string;
  /** Which bot account of the platform received it (a bot id, a webhook name). */
  account: string;
  /** The chat, group, channel or thread id on the platform. */
  chat_id: string;
  /**
   * With a topic or thread that is its own conversation (`chat_id` `<group>:<topic>`): the group it
   * belongs to. The access policy allows the topic when it allows the group (a topic entry of
   * `allow_groups` narrows that, never widens it).
   */
  group_id?: string;
  /** `<platform>:<chat_id>`: messages with the same key are one conversation, answered in order. */
  conversation_key: string;
  sender: Sender;
  /** A one-to-one chat with the bot (not a group or channel). */
  is_direct: boolean;
  /** The bot was mentioned (`@bot`, a command addressed to it, a platform mention entity). */
  mentions_bot: boolean;
  text: string;
  /**
   * Files that came with it and are not (yet) taken in. The bus hands them to the adapter's
   * `take_attachments` once the message is let in: pictures become `images`, the rest is refused
   * with a word to the sender. Without that hook they reach the model as `[<kind>: <url>]` lines.
   */
  attachments: Attachment[];
  /**
   * Pictures taken in: bytes checked (`image_from_bytes`), base64 in `data`. They go to the model
   * with the text and are kept inline in the conversation log.
   */
  images?: ImagePart[];
  platform_message_id: string;
  reply_to: ReplyRef | null;
  /** When the platform says it was sent, ms since the epoch (the receive time when it says not). */
  sent_at: number;
}

/** The conversation key of a chat: `<platform>:<chat_id>`. */
export function conversation_key_of(platform: string, chat_id: string): string {
  return `${platform}:${chat_id}`;
}

/** The key under which a message is deduplicated: platform, account and the platform's id. */
export function message_key(message: InboundMessage): string {
  return `${message.platform}:${message.account}:${message.platform_message_id}`;
}

/** The key of a sender, for rate limits and pairing: `<platform>:<sender id>`. */
export function sender_key(message: InboundMessage): string {
  return `${message.platform}:${message.sender.id}`;
}

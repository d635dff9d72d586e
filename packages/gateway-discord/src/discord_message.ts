import { type Attachment, conversation_key_of, type InboundMessage } from '@lich/gateway';
import type { Message } from 'discord.js';

/** The platform name, as in `lich gateway discord`. */
export const DISCORD_PLATFORM = 'discord';

/**
 * The envelope of one Discord message. Contract: the conversation is the channel (a thread has
 * its own channel id, so it is its own conversation); a message without a guild is direct; a user
 * mention of the bot sets `mentions_bot` (`@everyone` does not); a reply to the bot sets
 * `reply_to.to_bot`; attachments keep their URL.
 */
export function to_inbound(message: Message, bot_id: string): InboundMessage {
  const chat_id = message.channelId;
  const attachments: Attachment[] = [...message.attachments.values()].map((attachment) => ({
    kind: attachment.contentType?.startsWith('image/') ? 'image' : 'document',
    url: attachment.url,
    name: attachment.name,
    ...(attachment.contentType === null ? {} : { mime_type: attachment.contentType }),
    size_bytes: attachment.size,
  }));
  const reference = message.reference?.messageId;
  return {
    platform: DISCORD_PLATFORM,
    account: bot_id,
    chat_id,
    conversation_key: conversation_key_of(DISCORD_PLATFORM, chat_id),
    sender: {
      id: message.author.id,
      name: message.author.globalName ?? message.author.username,
      is_bot: message.author.bot || message.author.id === bot_id,
    },
    is_direct: message.guildId === null,
    mentions_bot: message.mentions.users.has(bot_id),
    text: message.content,
    attachments,
    platform_message_id: message.id,
    reply_to:
      reference === undefined
        ? null
        : { platform_message_id: reference, to_bot: message.mentions.repliedUser?.id === bot_id },
    sent_at: message.createdTimestamp,
  };
}

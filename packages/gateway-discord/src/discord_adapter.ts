import {
  type AttachmentIntake,
  DEFAULT_MAX_IMAGE_BYTES,
  type GatewayAdapter,
  type GatewayIngress,
  type GatewayLogEntry,
  type InboundMessage,
  type OutboxEntry,
  type ReplyTarget,
} from '@lich/gateway';
import {
  ApplicationCommandOptionType,
  type ChatInputApplicationCommandData,
  type ChatInputCommandInteraction,
  Client,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
} from 'discord.js';
import { DISCORD_CDN_HOSTS, take_discord_attachments } from './discord_files.js';
import { DISCORD_PLATFORM, to_inbound } from './discord_message.js';

/** Discord refused a privileged intent: the message says what to switch on. */
export class DiscordIntentError extends Error {
  override name = 'DiscordIntentError';
}

/** Discord's limit on a message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

/** The slash command registered with `--register-commands`. */
export const LICH_COMMAND: ChatInputApplicationCommandData = {
  name: 'lich',
  description: 'Ask Lich',
  options: [
    {
      type: ApplicationCommandOptionType.String,
      name: 'prompt',
      description: 'What to ask',
      required: true,
    },
  ],
};

/** How a `DiscordAdapter` is built. */
export interface DiscordAdapterOptions {
  token: string;
  /** The REST API root (default Discord's); tests point it at a fake. */
  api?: string;
  /** Register the `/lich` slash command at start. */
  register_commands?: boolean;
  /**
   * The largest picture downloaded, in bytes; default `DEFAULT_MAX_IMAGE_BYTES` (10 MiB). Larger
   * ones are refused with a word to the sender.
   */
  max_image_bytes?: number;
  /**
   * Tests only: hosts (`127.0.0.1:<port>`) attachments may also be downloaded from, besides
   * Discord's CDN (`DISCORD_CDN_HOSTS`): a fake's. No setting or flag sets it.
   */
  test_attachment_hosts?: readonly string[];
  log?: (entry: GatewayLogEntry) => void;
}

const INTENT_HELP =
  'Discord refused the Message Content intent: in the developer portal open Applications → your ' +
  'bot → Bot → Privileged Gateway Intents, switch on MESSAGE CONTENT INTENT, save, and start again';

/**
 * Discord through discord.js: direct messages, and guild channels when mentioned (the bus's group
 * rule); a thread is its own conversation (its channel id).
 *
 * Contract (beyond `GatewayAdapter`'s):
 * - intents Guilds, GuildMessages, DirectMessages and MessageContent; a refused privileged intent
 *   fails `start` with a `GatewayConfigError` that says what to switch on;
 * - every message is sent with `allowedMentions: { parse: [] }`, so a reply can never ping
 *   `@everyone`, a role or a user; reconnects and rate limits are discord.js's;
 * - `/lich prompt:<text>` (registered on request) is taken as a message addressed to the bot and
 *   acknowledged privately at once; the answer comes in the channel.
 */
export class DiscordAdapter implements GatewayAdapter {
  readonly platform = DISCORD_PLATFORM;
  readonly max_message_chars = DISCORD_MESSAGE_LIMIT;
  readonly can_pair = true;
  /** One gateway connection per bot token takes the messages. */
  readonly single_consumer = true;
  readonly typing_interval_ms = 8_000;
  readonly client: Client;
  readonly #options: DiscordAdapterOptions;
  readonly #log: (entry: GatewayLogEntry) => void;
  #ingress: GatewayIngress | undefined;
  #taking = false;
  #closed = false;

  constructor(options: DiscordAdapterOptions) {
    this.#options = options;
    this.#log = options.log ?? (() => undefined);
    this.client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ],
      partials: [Partials.Channel],
      allowedMentions: { parse: [] },
      ...(options.api === undefined ? {} : { rest: { api: options.api } }),
    });
  }

  async start(ingress: GatewayIngress): Promise<void> {
    this.#ingress = ingress;
    this.client.on('messageCreate', (message) => this.#on_message(message));
    this.client.on('interactionCreate', (interaction) => this.#on_interaction(interaction));
    const ready = new Promise<void>((resolve) => this.client.once('clientReady', () => resolve()));
    try {
      await this.client.login(this.#options.token);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (/disallowed intent/i.test(text)) throw new DiscordIntentError(INTENT_HELP);
      throw error;
    }
    await ready;
    if (this.#options.register_commands) {
      await this.client.application?.commands.set([LICH_COMMAND]);
      this.#log({ level: 'info', message: 'discord: the /lich command is registered' });
    }
    this.#taking = true;
  }

  #account(): string {
    return this.client.user?.id ?? '';
  }

  #hand_over(inbound: InboundMessage): void {
    const ingress = this.#ingress;
    if (!this.#taking || ingress === undefined) return;
    ingress.receive(inbound).catch((error: unknown) => {
      this.#log({
        level: 'error',
        message: `discord: message ${inbound.platform_message_id}: ${error}`,
      });
    });
  }

  #on_message(message: Message): void {
    const bot_id = this.#account();
    if (bot_id === '') return;
    this.#hand_over(to_inbound(message, bot_id));
  }

  /**
   * Downloads the message's image attachments from Discord's CDN only (`cdn.discordapp.com`,
   * `media.discordapp.net`), within `max_image_bytes`; other files are refused.
   */
  async take_attachments(message: InboundMessage, signal: AbortSignal): Promise<AttachmentIntake> {
    return take_discord_attachments(message.attachments, {
      hosts: [...DISCORD_CDN_HOSTS, ...(this.#options.test_attachment_hosts ?? [])],
      max_bytes: this.#options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES,
      signal,
    });
  }

  #on_interaction(interaction: Interaction): void {
    if (!interaction.isChatInputCommand() || interaction.commandName !== LICH_COMMAND.name) return;
    const command = interaction as ChatInputCommandInteraction;
    const prompt = command.options.getString('prompt', true);
    const chat_id = command.channelId;
    this.#hand_over({
      platform: DISCORD_PLATFORM,
      account: this.#account(),
      chat_id,
      conversation_key: `${DISCORD_PLATFORM}:${chat_id}`,
      sender: {
        id: command.user.id,
        name: command.user.globalName ?? command.user.username,
        is_bot: command.user.bot,
      },
      is_direct: command.guildId === null,
      mentions_bot: true,
      text: prompt,
      attachments: [],
      platform_message_id: command.id,
      reply_to: null,
      sent_at: command.createdTimestamp,
    });
    command.reply({ content: 'On it.', ephemeral: true }).catch(() => undefined);
  }

  async #channel(chat_id: string) {
    const channel =
      this.client.channels.cache.get(chat_id) ?? (await this.client.channels.fetch(chat_id));
    if (channel === null || !channel.isSendable()) {
      throw new Error(`discord: cannot send to channel ${chat_id}`);
    }
    return channel;
  }

  async send(chunk: OutboxEntry): Promise<void> {
    const channel = await this.#channel(chunk.target.chat_id);
    const reply_to = chunk.index === 0 ? chunk.reply_to : undefined;
    await channel.send({
      content: chunk.text,
      allowedMentions: { parse: [] },
      ...(reply_to === undefined || !/^\d+$/.test(reply_to)
        ? {}
        : { reply: { messageReference: reply_to, failIfNotExists: false } }),
    });
  }

  async notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void> {
    try {
      const channel = await this.#channel(target.chat_id);
      await channel.send({
        content: text,
        allowedMentions: { parse: [] },
        ...(reply_to === null || !/^\d+$/.test(reply_to)
          ? {}
          : { reply: { messageReference: reply_to, failIfNotExists: false } }),
      });
    } catch (error) {
      this.#log({ level: 'warn', message: `discord: a notice was not sent: ${error}` });
    }
  }

  async typing(target: ReplyTarget): Promise<void> {
    try {
      await (await this.#channel(target.chat_id)).sendTyping();
    } catch {
      // best effort
    }
  }

  async stop_intake(): Promise<void> {
    this.#taking = false;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#taking = false;
    await this.client.destroy();
  }
}

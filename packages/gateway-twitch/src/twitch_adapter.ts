import {
  conversation_key_of,
  type GatewayAdapter,
  type GatewayIngress,
  type GatewayLogEntry,
  type InboundMessage,
  type OutboxEntry,
  type ReplyTarget,
} from '@lich/gateway';
import tmi from 'tmi.js';
import { SendWindow } from './send_window.js';

/** The platform name, as in `lich gateway twitch`. */
export const TWITCH_PLATFORM = 'twitch';
/** Twitch's limit on a chat message. */
export const TWITCH_MESSAGE_LIMIT = 500;
/** Messages a bot may send in 30 s; as a moderator of the channel, 100. */
export const TWITCH_RATE = { user: 20, moderator: 100, window_ms: 30_000 };

/** How a `TwitchAdapter` is built. */
export interface TwitchAdapterOptions {
  /** The bot account's login name. */
  username: string;
  /** Its OAuth token (`oauth:…`). */
  token: string;
  /** Channels to join, with or without `#`. */
  channels: string[];
  /** A prefix that addresses the bot besides `@username` (default `!lich`). */
  prefix?: string;
  /**
   * True to treat the bot as a moderator of every channel: the limit is 100 per 30 s, not 20.
   * Without it, a channel gets 100 once Twitch says (USERSTATE badges) the bot moderates it or
   * is its broadcaster.
   */
  moderator?: boolean;
  /** Override of the send window (tests); `moderator_limit` is the ceiling where the bot mods. */
  rate?: { limit: number; window_ms: number; max_waiting?: number; moderator_limit?: number };
  /** Where to connect (default Twitch's chat over TLS); tests point it at a fake. */
  connection?: { server: string; port: number; secure: boolean };
  log?: (entry: GatewayLogEntry) => void;
}

function channel_of(name: string): string {
  return name.replace(/^#/, '').toLowerCase();
}

/** The roles Twitch's badges give a chatter, as `Sender.roles` names them. */
const ROLE_BADGES = ['broadcaster', 'moderator', 'vip'];

/** True when a USERSTATE's raw tags say the bot is moderator or broadcaster of the channel. */
export function bot_moderates(tags: Record<string, unknown>): boolean {
  if (tags.mod === '1' || tags.mod === true) return true;
  return /(?:^|,)(?:broadcaster|moderator)\//.test(String(tags.badges ?? ''));
}

/** A chatter's roles in the channel, from the message's badges (and the `mod` tag). */
export function roles_of(tags: tmi.ChatUserstate): string[] {
  const badges = tags.badges ?? {};
  const roles = ROLE_BADGES.filter((badge) => badges[badge] !== undefined);
  if (tags.mod === true && !roles.includes('moderator')) roles.push('moderator');
  return roles;
}

/**
 * Twitch chat through tmi.js (IRC over WebSocket).
 *
 * Contract (beyond `GatewayAdapter`'s):
 * - every chat message of the joined channels goes to the bus; `@<username>` or the prefix
 *   (stripped) sets `mentions_bot`, so with the bus's default group rule only those are answered;
 *   the channel is the conversation; there are no direct messages;
 * - a channel is open to every viewer (`public_groups`), so by default only allowed senders are
 *   answered in it: `allow_users` ids, or `allow_roles` matched against the chatter's badges
 *   (`broadcaster`, `moderator`, `vip`);
 * - replies are plain text on one line (newlines become spaces), at most 500 characters, the
 *   first chunk threaded as a reply to the message it answers;
 * - every send takes a slot of a sliding window (20 per 30 s; 100 in a channel where the bot is
 *   moderator or broadcaster, as the channel's USERSTATE says, or everywhere with `moderator`); a
 *   send that cannot get one because too many wait is dropped with an error log, never sent over
 *   the limit.
 */
export class TwitchAdapter implements GatewayAdapter {
  readonly platform = TWITCH_PLATFORM;
  readonly max_message_chars = TWITCH_MESSAGE_LIMIT;
  readonly can_pair = false;
  /** One IRC connection per account: two would answer every message twice. */
  readonly single_consumer = true;
  readonly public_groups = true;
  readonly client: tmi.Client;
  readonly window: SendWindow;
  readonly #options: TwitchAdapterOptions;
  readonly #log: (entry: GatewayLogEntry) => void;
  readonly #username: string;
  readonly #moderator_limit: number;
  /** Channels whose latest USERSTATE says the bot is moderator or broadcaster there. */
  readonly #moderates = new Set<string>();
  #taking = false;
  #closed = false;

  constructor(options: TwitchAdapterOptions) {
    this.#options = options;
    this.#log = options.log ?? (() => undefined);
    this.#username = options.username.toLowerCase();
    this.window = new SendWindow(
      options.rate ?? {
        limit: options.moderator ? TWITCH_RATE.moderator : TWITCH_RATE.user,
        window_ms: TWITCH_RATE.window_ms,
      },
    );
    this.#moderator_limit = options.rate?.moderator_limit ?? TWITCH_RATE.moderator;
    const quiet = () => undefined;
    this.client = new tmi.Client({
      options: { skipUpdatingEmotesets: true },
      connection: { reconnect: true, secure: true, ...options.connection },
      identity: { username: this.#username, password: options.token },
      channels: options.channels.map(channel_of),
      logger: {
        info: quiet,
        warn: quiet,
        error: (text: string) => this.#log({ level: 'error', message: `twitch: ${text}` }),
      },
    });
  }

  async start(ingress: GatewayIngress): Promise<void> {
    // USERSTATE (on JOIN and after each send) carries the bot's own badges in that channel
    this.client.on('raw_message', (_copy, message) => {
      if (message.command !== 'USERSTATE') return;
      const chat_id = channel_of(String(message.params?.[0] ?? ''));
      if (bot_moderates(message.tags ?? {})) this.#moderates.add(chat_id);
      else this.#moderates.delete(chat_id);
    });
    this.client.on('message', (channel, tags, text, self) => {
      if (self || !this.#taking) return;
      const inbound = this.#to_inbound(channel, tags, text);
      if (inbound === null) return;
      ingress.receive(inbound).catch((error: unknown) => {
        this.#log({
          level: 'error',
          message: `twitch: message ${inbound.platform_message_id}: ${error}`,
        });
      });
    });
    await this.client.connect();
    this.#taking = true;
  }

  #to_inbound(channel: string, tags: tmi.ChatUserstate, text: string): InboundMessage | null {
    const id = tags.id;
    const user_id = tags['user-id'];
    if (id === undefined || user_id === undefined) return null;
    const prefix = this.#options.prefix ?? '!lich';
    const mention = `@${this.#username}`;
    const lower = text.toLowerCase();
    let body = text;
    let addressed = lower.startsWith(mention) || lower.includes(` ${mention}`);
    if (lower === prefix || lower.startsWith(`${prefix} `)) {
      addressed = true;
      body = text.slice(prefix.length).trim();
    }
    const chat_id = channel_of(channel);
    const parent = tags['reply-parent-msg-id'] as string | undefined;
    return {
      platform: TWITCH_PLATFORM,
      account: this.#username,
      chat_id,
      conversation_key: conversation_key_of(TWITCH_PLATFORM, chat_id),
      sender: {
        id: user_id,
        name: tags['display-name'] ?? tags.username ?? '',
        is_bot: (tags.username ?? '').toLowerCase() === this.#username,
        roles: roles_of(tags),
      },
      is_direct: false,
      mentions_bot: addressed,
      text: body,
      attachments: [],
      platform_message_id: id,
      reply_to:
        parent === undefined
          ? null
          : {
              platform_message_id: parent,
              to_bot: (tags['reply-parent-user-login'] as string | undefined) === this.#username,
            },
      sent_at: Number(tags['tmi-sent-ts'] ?? Date.now()),
    };
  }

  async #say(chat_id: string, text: string, reply_to: string | null): Promise<void> {
    const line = text.replace(/\s*\n\s*/g, ' ').slice(0, TWITCH_MESSAGE_LIMIT);
    if (!(await this.window.take(this.#limit_in(chat_id)))) {
      this.#log({
        level: 'error',
        message: `twitch: ${this.window.waiting} messages already wait for the rate limit; one to #${chat_id} is dropped`,
      });
      return;
    }
    const tags = reply_to === null ? '' : `@reply-parent-msg-id=${reply_to} `;
    await this.client.raw(`${tags}PRIVMSG #${chat_id} :${line}`);
  }

  /** The send ceiling in a channel: higher where Twitch's USERSTATE says the bot moderates. */
  #limit_in(chat_id: string): number {
    return this.#moderates.has(chat_id)
      ? Math.max(this.window.limit, this.#moderator_limit)
      : this.window.limit;
  }

  async send(chunk: OutboxEntry): Promise<void> {
    await this.#say(chunk.target.chat_id, chunk.text, chunk.index === 0 ? chunk.reply_to : null);
  }

  async notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void> {
    await this.#say(target.chat_id, text, reply_to).catch((error: unknown) =>
      this.#log({ level: 'warn', message: `twitch: a notice was not sent: ${error}` }),
    );
  }

  async stop_intake(): Promise<void> {
    this.#taking = false;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#taking = false;
    await this.client.disconnect().catch(() => undefined);
  }
}

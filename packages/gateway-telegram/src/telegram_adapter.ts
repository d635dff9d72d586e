import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { autoRetry } from '@grammyjs/auto-retry';
import { apiThrottler } from '@grammyjs/transformer-throttler';
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
import { Bot, GrammyError } from 'grammy';
import type { MessageEntity } from 'grammy/types';
import { TELEGRAM_API_ROOT, take_telegram_attachments } from './telegram_files.js';
import { format_telegram } from './telegram_format.js';
import {
  local_command,
  split_chat_id,
  TELEGRAM_PLATFORM,
  type TelegramBotIdentity,
  type TelegramMessage,
  to_inbound,
} from './telegram_message.js';
import { UpdateQueue } from './update_queue.js';

/** Telegram's limit on a message's text, after entities are parsed. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

/** Webhook mode: Telegram POSTs updates to `url`, which reaches this process at `host:port`. */
export interface TelegramWebhookOptions {
  /** The public HTTPS URL given to Telegram's setWebhook. */
  url: string;
  /** Sent by Telegram in `X-Telegram-Bot-Api-Secret-Token`; 1–256 of `A-Z a-z 0-9 _ -`. */
  secret_token: string;
  /** Where this process listens (default 127.0.0.1:8443, path from `url`). */
  host?: string;
  port?: number;
}

/** How a `TelegramAdapter` is built. */
export interface TelegramAdapterOptions {
  token: string;
  /** The Bot API root (default Telegram's); tests point it at an emulator. */
  api_root?: string;
  /** Use a webhook instead of long polling. */
  webhook?: TelegramWebhookOptions;
  /** Long-polling timeout in seconds (default 30). */
  poll_timeout_s?: number;
  /** Pause after an empty batch, so a server that does not hold the poll is not spun on. */
  idle_delay_ms?: number;
  /** Backoff bounds after a failed getUpdates (default 1 s, doubling to 60 s). */
  backoff_ms?: { first: number; max: number };
  /** What `/help` and `/start` answer. */
  help_text?: string;
  /**
   * The largest picture downloaded (a photo's largest size within it is taken), in bytes; default
   * `DEFAULT_MAX_IMAGE_BYTES` (10 MiB). Larger ones are refused with a word to the sender.
   */
  max_image_bytes?: number;
  log?: (entry: GatewayLogEntry) => void;
}

const DEFAULT_HELP =
  'I am a Lich agent. Write to me and I will answer. If you are not allowed yet, your first ' +
  'message gets a pairing code for the bot owner.';

const MAX_WEBHOOK_BODY = 1024 * 1024;

/** While a chat's update runs, how often to ask for new updates at most. */
const BUSY_POLL_MS = 250;

function same_secret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function message_id_of(platform_message_id: string): number | undefined {
  const id = Number(platform_message_id.split(':').at(-1));
  return Number.isInteger(id) ? id : undefined;
}

async function read_json(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_WEBHOOK_BODY) throw new RangeError('body too large');
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Telegram through grammy, by long polling (default) or a webhook with a secret token.
 *
 * Contract (beyond `GatewayAdapter`'s):
 * - an update is acknowledged only after `ingress.receive` resolved: the polling offset moves past
 *   it then, and the webhook answers 200 then (500 otherwise, so Telegram redelivers);
 * - polled updates run in order within a chat and side by side across chats (`UpdateQueue`): a
 *   picture being downloaded for one chat never holds up another's messages;
 * - a 409 from getUpdates (another consumer of this bot token) is logged as such, with the fix,
 *   and retried with backoff; so is any other failure; a 401 stops polling with an error log;
 * - API calls go through the throttler and auto-retry plugins, which honour `retry_after`;
 * - `/start` and `/help` are answered locally (an unknown user's `/start` under pairing gets
 *   the pairing code); forum topics are their own conversations;
 * - replies are sent as text plus entities (no parse mode); if Telegram still refuses the
 *   entities, the chunk is sent again as plain text.
 */
export class TelegramAdapter implements GatewayAdapter {
  readonly platform = TELEGRAM_PLATFORM;
  readonly max_message_chars = TELEGRAM_MESSAGE_LIMIT;
  readonly can_pair = true;
  readonly typing_interval_ms = 4_500;
  readonly bot: Bot;
  readonly #options: TelegramAdapterOptions;
  readonly #log: (entry: GatewayLogEntry) => void;
  #identity: TelegramBotIdentity | undefined;
  #ingress: GatewayIngress | undefined;
  #polling: AbortController | undefined;
  #poll_loop: Promise<void> | undefined;
  #server: Server | undefined;
  #closed = false;

  constructor(options: TelegramAdapterOptions) {
    this.#options = options;
    this.#log = options.log ?? (() => undefined);
    this.bot = new Bot(options.token, {
      client: options.api_root === undefined ? {} : { apiRoot: options.api_root },
    });
    this.bot.api.config.use(apiThrottler());
    this.bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 120 }));
  }

  /** The bot's id and username, once `start` has asked Telegram. */
  get identity(): TelegramBotIdentity | undefined {
    return this.#identity;
  }

  /** Long polling has one consumer per bot; webhook mode scales behind a load balancer. */
  get single_consumer(): boolean {
    return this.#options.webhook === undefined;
  }

  /** The webhook server's address, in webhook mode. */
  get webhook_address(): AddressInfo | undefined {
    return this.#server?.address() as AddressInfo | undefined;
  }

  async start(ingress: GatewayIngress): Promise<void> {
    this.#ingress = ingress;
    const me = await this.bot.api.getMe();
    this.#identity = { id: me.id, username: me.username };
    const webhook = this.#options.webhook;
    if (webhook === undefined) {
      await this.bot.api.deleteWebhook().catch(() => undefined);
      this.#polling = new AbortController();
      this.#poll_loop = this.#poll(this.#polling.signal);
      return;
    }
    await this.#listen(webhook);
    await this.bot.api.setWebhook(webhook.url, {
      secret_token: webhook.secret_token,
      allowed_updates: ['message'],
    });
  }

  async #poll(signal: AbortSignal): Promise<void> {
    const backoff = this.#options.backoff_ms ?? { first: 1_000, max: 60_000 };
    let delay = backoff.first;
    // each chat's updates in order, chats side by side: one chat's picture download never holds
    // up another's message
    const queue = new UpdateQueue<{ update_id: number; message?: TelegramMessage }>({
      handle: (update) => this.#handle(update.message),
      chat_of: (update) => String(update.message?.chat.id ?? ''),
      on_error: (update, error) =>
        // not acknowledged: the same update comes again with a later getUpdates
        this.#log({ level: 'error', message: `telegram: update ${update.update_id}: ${error}` }),
    });
    while (!signal.aborted) {
      let updates: { update_id: number; message?: TelegramMessage }[];
      try {
        updates = await this.bot.api.getUpdates(
          {
            offset: queue.offset(),
            // while a chat's update runs, ask without holding the poll: its own updates come
            // back unacknowledged, and new ones are taken beside it
            timeout: queue.running ? 0 : (this.#options.poll_timeout_s ?? 30),
            allowed_updates: ['message'],
          },
          // grammy types its signal with the abort-controller polyfill's type; Node's is the same
          signal as Parameters<Bot['api']['getUpdates']>[1],
        );
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof GrammyError && error.error_code === 401) {
          this.#log({
            level: 'error',
            message: 'telegram: the bot token was refused (401); polling stopped',
          });
          break;
        }
        const conflict = error instanceof GrammyError && error.error_code === 409;
        this.#log({
          level: 'warn',
          message: conflict
            ? `telegram: another getUpdates consumer uses this bot token (409: ${error.description}); ` +
              `stop the other gateway process, or use webhook mode for several nodes; retrying in ${delay} ms`
            : `telegram: getUpdates failed (${error instanceof Error ? error.message : error}); retrying in ${delay} ms`,
        });
        await sleep(delay, undefined, { signal }).catch(() => undefined);
        delay = Math.min(delay * 2, backoff.max);
        continue;
      }
      delay = backoff.first;
      if (signal.aborted) break;
      const fresh = queue.take(updates);
      if (queue.take_failure()) {
        // a failed update comes again with the next poll: not at once
        await sleep(backoff.first, undefined, { signal }).catch(() => undefined);
      } else if (fresh === 0 && queue.running) {
        // nothing new: wait for a chat to finish, or a moment, before asking again
        await queue.settled(BUSY_POLL_MS);
      } else if (updates.length === 0) {
        await sleep(this.#options.idle_delay_ms ?? 100, undefined, { signal }).catch(
          () => undefined,
        );
      }
    }
    // what was taken is answered before intake stops
    await queue.idle();
  }

  async #listen(webhook: TelegramWebhookOptions): Promise<void> {
    const path = new URL(webhook.url).pathname;
    const server = createServer((request, response) => {
      const done = (status: number) => response.writeHead(status).end();
      if (request.method !== 'POST' || new URL(request.url ?? '/', 'http://x').pathname !== path) {
        done(404);
        return;
      }
      const header = request.headers['x-telegram-bot-api-secret-token'];
      if (!same_secret(typeof header === 'string' ? header : undefined, webhook.secret_token)) {
        this.#log({
          level: 'warn',
          message: 'telegram: webhook request with a wrong secret token refused',
        });
        request.resume();
        done(401);
        return;
      }
      read_json(request)
        .then(async (update) => {
          await this.#handle((update as { message?: TelegramMessage }).message);
          done(200);
        })
        .catch((error: unknown) => {
          done(error instanceof SyntaxError ? 400 : error instanceof RangeError ? 413 : 500);
        });
    });
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(webhook.port ?? 8443, webhook.host ?? '127.0.0.1', () => resolve());
    });
  }

  async #handle(message: TelegramMessage | undefined): Promise<void> {
    const identity = this.#identity;
    const ingress = this.#ingress;
    if (message === undefined || identity === undefined || ingress === undefined) return;
    const inbound = to_inbound(message, identity, { max_image_bytes: this.#max_image_bytes });
    if (inbound === null || inbound.sender.is_bot) return;
    const command = local_command(inbound.text, identity);
    if (command !== null && (inbound.is_direct || inbound.mentions_bot)) {
      // an unknown user's /start under pairing gets the pairing code, not the help
      if (command === 'start' && inbound.is_direct && (await ingress.greet?.(inbound)) === true) {
        return;
      }
      await this.notify(
        {
          platform: inbound.platform,
          account: inbound.account,
          chat_id: inbound.chat_id,
          conversation_key: inbound.conversation_key,
        },
        this.#options.help_text ?? DEFAULT_HELP,
        inbound.platform_message_id,
      );
      return;
    }
    await ingress.receive(inbound);
  }

  #reply_options(target: ReplyTarget, reply_to: string | null) {
    const { thread_id } = split_chat_id(target.chat_id);
    const message_id = reply_to === null ? undefined : message_id_of(reply_to);
    return {
      ...(thread_id === undefined ? {} : { message_thread_id: thread_id }),
      ...(message_id === undefined
        ? {}
        : { reply_parameters: { message_id, allow_sending_without_reply: true } }),
      link_preview_options: { is_disabled: true },
    };
  }

  async send(chunk: OutboxEntry): Promise<void> {
    const { chat_id } = split_chat_id(chunk.target.chat_id);
    const options = this.#reply_options(chunk.target, chunk.index === 0 ? chunk.reply_to : null);
    const formatted = format_telegram(chunk.text);
    try {
      await this.bot.api.sendMessage(chat_id, formatted.text, {
        ...options,
        entities: formatted.entities as unknown as MessageEntity[],
      });
    } catch (error) {
      if (!(error instanceof GrammyError && /can't parse entities/i.test(error.description)))
        throw error;
      this.#log({
        level: 'warn',
        message: 'telegram: entities refused; the chunk is sent as plain text',
      });
      await this.bot.api.sendMessage(chat_id, chunk.text, options);
    }
  }

  get #max_image_bytes(): number {
    return this.#options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES;
  }

  /**
   * Downloads the message's pictures from the Bot API's file host (the configured `api_root`),
   * within `max_image_bytes`; other files are refused (see `take_telegram_attachments`).
   */
  async take_attachments(message: InboundMessage, signal: AbortSignal): Promise<AttachmentIntake> {
    return take_telegram_attachments(message.attachments, {
      get_file: (file_id, abort) =>
        // grammy types its signal with the abort-controller polyfill's type; Node's is the same
        this.bot.api.getFile(file_id, abort as Parameters<Bot['api']['getFile']>[1]),
      token: this.#options.token,
      api_root: this.#options.api_root ?? TELEGRAM_API_ROOT,
      max_bytes: this.#max_image_bytes,
      signal,
    });
  }

  async notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void> {
    const { chat_id } = split_chat_id(target.chat_id);
    await this.bot.api
      .sendMessage(chat_id, text, this.#reply_options(target, reply_to))
      .catch((error: unknown) =>
        this.#log({ level: 'warn', message: `telegram: a notice was not sent: ${error}` }),
      );
  }

  async typing(target: ReplyTarget): Promise<void> {
    const { chat_id, thread_id } = split_chat_id(target.chat_id);
    await this.bot.api
      .sendChatAction(
        chat_id,
        'typing',
        thread_id === undefined ? {} : { message_thread_id: thread_id },
      )
      .catch(() => undefined);
  }

  async stop_intake(): Promise<void> {
    this.#polling?.abort();
    await this.#poll_loop;
    const server = this.#server;
    if (server !== undefined) {
      this.#server = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.stop_intake();
  }
}

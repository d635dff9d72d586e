import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AttachmentIntake,
  DEFAULT_MAX_IMAGE_BYTES,
  Deduper,
  fetch_public_image,
  type GatewayAdapter,
  type GatewayIngress,
  type GatewayLogEntry,
  type ImagePart,
  type InboundMessage,
  type OutboxEntry,
  type RefusedAttachment,
  type ReplyTarget,
  type Settlement,
} from '@lich/gateway';
import { CallbackSender } from './callback_sender.js';
import { DEFAULT_TOLERANCE_S, verify_webhook } from './standard_webhooks.js';
import { IMAGE_URL_KIND, parse_payload, WEBHOOK_PLATFORM } from './webhook_payload.js';

/** How the webhook adapter listens and answers. */
export interface WebhookAdapterOptions {
  /** The signing key: the decoded `whsec_` secret (`decode_webhook_secret`). */
  key: Buffer;
  /** Default 127.0.0.1: put a reverse proxy in front to take traffic from elsewhere. */
  host?: string;
  /** Default 8787; 0 picks a free port (see `url`). */
  port?: number;
  /** The path POSTs go to (default `/webhook`). */
  path?: string;
  /** `sync` (default): the reply is the HTTP response; `async`: 202 now, the reply to `callback_url`. */
  mode?: 'sync' | 'async';
  /** Where replies go in `async` mode, and in `sync` mode once `reply_timeout_ms` passed. */
  callback_url?: string;
  /** The callback signing key (default `key`). */
  callback_key?: Buffer;
  /** Callback attempts and first backoff (default 5 and 500 ms). */
  callback_attempts?: number;
  callback_backoff_ms?: number;
  /** `sync`: how long a request waits for its reply before a 202 (default 60 s). */
  reply_timeout_ms?: number;
  /** Larger bodies are refused with 413 (default 64 KiB). */
  max_body_bytes?: number;
  /** Longer texts are refused with 400 (default 16 000 characters). */
  max_text_chars?: number;
  /** Reply chunk size (default 16 000 characters). */
  max_message_chars?: number;
  /** Clock skew allowed on `webhook-timestamp` (default 300 s). */
  tolerance_s?: number;
  /** The account name in the envelope (default `webhook`). */
  account?: string;
  /**
   * The largest picture taken (`images`, base64 or fetched), in bytes; default
   * `DEFAULT_MAX_IMAGE_BYTES` (10 MiB). The whole body must also fit `max_body_bytes`.
   */
  max_image_bytes?: number;
  /**
   * Hosts pictures may be fetched from by URL (`images.example.com`, `*.example.com`); default
   * none: a picture given by URL is refused. Even a listed host is refused when its name resolves
   * to a loopback, private or otherwise internal address.
   */
  image_url_hosts?: readonly string[];
  on_log?: (entry: GatewayLogEntry) => void;
}

interface Waiter {
  resolve: (settlement: Settlement) => void;
}

function reply_id(chunk_key: string): string {
  return `reply_${createHash('sha256').update(chunk_key).digest('base64url').slice(0, 32)}`;
}

function answer(response: ServerResponse, status: number, body: object, extra = {}): void {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...extra,
  });
  response.end(text);
}

/** Reads the body up to `limit` bytes; null when it is longer (the rest is not read). */
function read_body(request: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on('data', (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.pause();
        resolve(null);
        return;
      }
      parts.push(part);
    });
    request.on('end', () => resolve(Buffer.concat(parts)));
    request.on('error', reject);
  });
}

/**
 * A bot behind an HTTP webhook: POSTs signed with Standard Webhooks come in, replies go back in
 * the response (`sync`) or to a signed callback (`async`). node:http, no framework.
 *
 * Contract (per POST to `path`, in this order): 405 for another method, 503 while draining, 415
 * unless `content-type` is JSON, 413 over `max_body_bytes`, 401 for a missing, bad or stale
 * (over `tolerance_s`) signature, 409 for a `webhook-id` seen before, 400 for a body that is not
 * JSON or not a message; none of those reaches the bus. Then the bus decides: `accepted` answers
 * 202 (`async`) or 200 with the reply once it is settled (`sync`; 202 after
 * `reply_timeout_ms`, the reply then going to the callback when there is one); what the bus
 * refuses answers 200 with its `status` (and the `notice` said to the sender, such as a pairing
 * code). Callbacks are signed, retried with backoff, and made at most once per id.
 */
export class WebhookAdapter implements GatewayAdapter {
  readonly platform = WEBHOOK_PLATFORM;
  readonly can_pair = true;
  readonly max_message_chars: number;
  readonly callback: CallbackSender | null;
  readonly #options: WebhookAdapterOptions;
  readonly #replays = new Deduper({ ttl_ms: 2 * (DEFAULT_TOLERANCE_S + 60) * 1000 });
  readonly #waiters = new Map<string, Waiter>();
  /** What `take_attachments` refused, by message id, for the request's answer. */
  readonly #refused = new Map<string, RefusedAttachment[]>();
  #server: Server | null = null;
  #ingress: GatewayIngress | null = null;
  #intake = true;

  constructor(options: WebhookAdapterOptions) {
    this.#options = options;
    this.max_message_chars = options.max_message_chars ?? 16_000;
    this.callback =
      options.callback_url === undefined
        ? null
        : new CallbackSender({
            url: options.callback_url,
            key: options.callback_key ?? options.key,
            ...(options.callback_attempts === undefined
              ? {}
              : { attempts: options.callback_attempts }),
            ...(options.callback_backoff_ms === undefined
              ? {}
              : { backoff_ms: options.callback_backoff_ms }),
          });
    if ((options.mode ?? 'sync') === 'async' && this.callback === null) {
      throw new Error('webhook mode async needs a callback_url');
    }
  }

  /** `http://host:port/path`, once started. */
  get url(): string {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('the webhook adapter is not listening');
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}${this.#options.path ?? '/webhook'}`;
  }

  async start(ingress: GatewayIngress): Promise<void> {
    this.#ingress = ingress;
    const server = createServer((request, response) => {
      this.#handle(request, response).catch((error) => {
        this.#log('error', `a request failed: ${error instanceof Error ? error.message : error}`);
        answer(response, 500, { status: 'error' });
      });
    });
    server.requestTimeout = (this.#options.reply_timeout_ms ?? 60_000) + 30_000;
    server.headersTimeout = 30_000;
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port ?? 8787, this.#options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#log('info', `listening on ${this.url} (${this.#options.mode ?? 'sync'} replies)`);
  }

  async send(chunk: OutboxEntry): Promise<void> {
    // sync: a request still waiting gets the whole reply from `settled`
    if (chunk.answers.some((id) => this.#waiters.has(id))) return;
    if (this.callback === null) {
      this.#log(
        'warn',
        `a reply to ${chunk.reply_to} came after its request ended; no callback_url`,
      );
      return;
    }
    const delivered = await this.callback.deliver(reply_id(chunk.key), {
      type: 'reply',
      chat_id: chunk.target.chat_id,
      in_reply_to: chunk.reply_to,
      answers: chunk.answers,
      index: chunk.index,
      count: chunk.count,
      text: chunk.text,
    });
    if (!delivered) throw new Error(`the callback refused reply chunk ${chunk.key}`);
  }

  async notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void> {
    // a notice about a request in flight goes in its response (see `#handle`)
    if (reply_to !== null || this.callback === null) return;
    const id = `notice_${createHash('sha256').update(`${target.chat_id}\n${text}\n${Date.now()}`).digest('base64url').slice(0, 32)}`;
    await this.callback.deliver(id, { type: 'notice', chat_id: target.chat_id, text });
  }

  /**
   * Fetches the pictures the payload gave by URL (`fetch_public_image`: hosts on
   * `image_url_hosts` only, never an internal address, within `max_image_bytes`); other
   * attachments are kept as they are. What is refused is said in the request's answer.
   */
  async take_attachments(message: InboundMessage, signal: AbortSignal): Promise<AttachmentIntake> {
    const images: ImagePart[] = [];
    const refused: RefusedAttachment[] = [];
    const kept: InboundMessage['attachments'] = [];
    for (const attachment of message.attachments) {
      if (attachment.kind !== IMAGE_URL_KIND || attachment.url === undefined) {
        kept.push(attachment);
        continue;
      }
      const taken = await fetch_public_image(attachment.url, {
        allowed_hosts: this.#options.image_url_hosts ?? [],
        max_bytes: this.#options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES,
        media_type: attachment.mime_type,
        name: attachment.name,
        signal,
      });
      if (taken.ok) images.push(taken.image);
      else refused.push({ what: attachment.url, why: taken.error });
    }
    if (refused.length > 0) this.#refused.set(message.platform_message_id, refused);
    return { images, refused, kept };
  }

  settled(settlement: Settlement): void {
    const waiter = this.#waiters.get(settlement.message.platform_message_id);
    if (waiter === undefined) return;
    this.#waiters.delete(settlement.message.platform_message_id);
    waiter.resolve(settlement);
  }

  async stop_intake(): Promise<void> {
    this.#intake = false;
  }

  async close(): Promise<void> {
    this.#intake = false;
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  #log(level: GatewayLogEntry['level'], message: string): void {
    this.#options.on_log?.({ level, message: `webhook: ${message}` });
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== (this.#options.path ?? '/webhook')) {
      answer(response, 404, { status: 'not_found' });
      return;
    }
    if (request.method !== 'POST') {
      answer(response, 405, { status: 'method_not_allowed' }, { allow: 'POST' });
      return;
    }
    if (!this.#intake || this.#ingress === null) {
      answer(response, 503, { status: 'closed' }, { 'retry-after': '5', connection: 'close' });
      return;
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      answer(response, 415, { status: 'unsupported_media_type', error: 'send application/json' });
      return;
    }
    const limit = this.#options.max_body_bytes ?? 64 * 1024;
    const declared = Number(request.headers['content-length'] ?? 0);
    const body = declared > limit ? null : await read_body(request, limit);
    if (body === null) {
      answer(response, 413, { status: 'too_large', limit }, { connection: 'close' });
      return;
    }
    const verdict = verify_webhook(this.#options.key, request.headers, body, {
      tolerance_s: this.#options.tolerance_s ?? DEFAULT_TOLERANCE_S,
    });
    if (!verdict.ok) {
      answer(response, 401, { status: 'unauthorized', reason: verdict.reason });
      return;
    }
    if (this.#replays.check_and_remember(verdict.id)) {
      answer(response, 409, { status: 'replay', webhook_id: verdict.id });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      answer(response, 400, { status: 'invalid', error: 'the body is not JSON' });
      return;
    }
    const parsed = parse_payload(value, {
      webhook_id: verdict.id,
      account: this.#options.account ?? 'webhook',
      max_text_chars: this.#options.max_text_chars ?? 16_000,
      images: {
        max_image_bytes: this.#options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES,
        image_url_hosts: this.#options.image_url_hosts ?? [],
      },
    });
    if (!parsed.ok) {
      answer(response, 400, { status: 'invalid', error: parsed.error });
      return;
    }
    const message = parsed.message;
    const message_id = message.platform_message_id;
    const sync = (this.#options.mode ?? 'sync') === 'sync';
    // registered before `receive`, so a reply settled at once still finds its request
    const settled = sync ? this.#wait(message_id) : null;
    const result = await this.#ingress.receive(message);
    // pictures refused after the door (fetched by URL): said in this request's answer
    const refused = this.#refused.get(message_id);
    this.#refused.delete(message_id);
    const refusals = refused === undefined ? {} : { refused };
    if (result.status !== 'accepted') {
      this.#waiters.delete(message_id);
      if (result.status === 'closed') {
        this.#replays.forget(verdict.id); // not taken: the sender's retry must get in
        answer(response, 503, { status: 'closed' }, { 'retry-after': '5' });
        return;
      }
      if (result.status === 'invalid') {
        answer(response, 400, { status: 'invalid', error: result.reason, message_id, ...refusals });
        return;
      }
      answer(response, 200, { ...result, message_id });
      return;
    }
    if (settled === null) {
      answer(response, 202, { status: 'accepted', message_id, seq: result.seq, ...refusals });
      return;
    }
    response.on('close', () => {
      if (!response.writableEnded) this.#waiters.delete(message_id); // the caller hung up
    });
    const timeout_ms = this.#options.reply_timeout_ms ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      settled,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeout_ms);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === null) {
      this.#waiters.delete(message_id);
      answer(response, 202, {
        status: 'accepted',
        message_id,
        seq: result.seq,
        ...refusals,
        detail:
          this.callback === null
            ? `no reply within ${timeout_ms} ms`
            : 'the reply will be POSTed to the callback URL',
      });
      return;
    }
    answer(response, 200, {
      status: outcome.outcome,
      message_id,
      reply: outcome.reply?.text ?? null,
      chunks: outcome.reply?.chunks ?? [],
      answers_with: outcome.reply?.key ?? null,
      ...refusals,
    });
  }

  #wait(message_id: string): Promise<Settlement> {
    return new Promise((resolve) => this.#waiters.set(message_id, { resolve }));
  }
}

import { randomUUID } from 'node:crypto';
import type { ClientTransport, TransportLink } from './client_transports.js';
import { EventQueue } from './event_queue.js';
import { LichRpcError } from './lich_rpc_error.js';
import {
  type ClientInfo,
  type InitializeResult,
  type MethodName,
  type MethodParams,
  type MethodResult,
  PROTOCOL_VERSION,
  type RpcErrorObject,
} from './protocol_methods.js';
import type { EventParams, WirePromptImage } from './protocol_types.js';

/** The client's state. */
export type ClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** How a lost connection is made again. */
export interface ReconnectOptions {
  /** Attempts in a row before the client gives up and closes (default 10). */
  max_attempts?: number;
  /** The first wait; each failed attempt doubles it (default 100 ms). */
  initial_delay_ms?: number;
  /** The longest wait (default 5 000 ms). */
  max_delay_ms?: number;
}

/** Options of `LichClient.connect`. */
export interface LichClientOptions {
  /** `ws_transport({ url, token })`, `stdio_transport({ command: 'lich', args: ['serve', '--stdio'] })`, … */
  transport: ClientTransport;
  /** Sent in `initialize` (for a transport whose token is not in a header). */
  token?: string;
  /** Who is connecting (default `{ name: 'lich-client' }`). */
  client_info?: ClientInfo;
  /** `false`: a lost connection closes the client. Default: reconnect with backoff. */
  reconnect?: ReconnectOptions | false;
}

/** What `subscribe` answers and `resubscribed` reports. */
export interface SubscribeOutcome {
  session_id: string;
  replayed: number;
  /**
   * The server no longer holds what was missed (its ring moved on, or it restarted: a new epoch).
   * Refetch `session.history`; events continue live from here.
   */
  truncated: boolean;
  epoch: string;
}

/** What a `LichClient` reports besides events. */
export interface ClientNotices {
  /** The state changed. */
  state: ClientState;
  /** After a reconnection, a session's subscription was made again with `after_seq`. */
  resubscribed: SubscribeOutcome;
  /** A reconnection attempt failed, or a resubscription was refused. */
  error: Error;
}

/** Options of one request. */
export interface RequestOptions {
  /** Reject with `kind: 'timeout'` when no answer comes within this long. */
  timeout_ms?: number;
}

type Pending = {
  resolve(value: unknown): void;
  reject(error: LichRpcError): void;
  timer?: NodeJS.Timeout;
};

/**
 * A typed client of `lich serve` over any transport.
 *
 * Contract:
 * - `connect` opens the link and runs `initialize`; it rejects when either fails;
 * - `request` sends one request with a fresh id and resolves with its result, or rejects with a
 *   `LichRpcError` (`kind: 'server'` with the server's code, `disconnected`, `timeout`,
 *   `closed`); a request made while reconnecting waits for the connection;
 * - every `event` notification goes to `on_event` listeners and `events()` iterators, in order,
 *   at most once per session `seq` and epoch (a replay overlapping what was seen is dropped);
 * - after a lost connection it reconnects with backoff, initializes again, and resubscribes each
 *   session with `after_seq` = the last seq it delivered and that epoch, so no event is missed or
 *   repeated; a resubscription answered `truncated` (server restarted, or the gap is gone) is
 *   reported through `on('resubscribed')` so the app refetches history;
 * - `close` ends the link and rejects what is pending; it is idempotent.
 */
export class LichClient {
  readonly #options: LichClientOptions;
  #link: TransportLink | undefined;
  #state: ClientState = 'connecting';
  #server: InitializeResult | undefined;
  #next_id = 1;
  readonly #pending = new Map<number, Pending>();
  /** Sessions subscribed, with what to resubscribe with. */
  readonly #subscriptions = new Map<string, { can_approve: boolean; after_seq: number }>();
  /** The last delivered event of each session. */
  readonly #seen = new Map<string, { epoch: string; seq: number }>();
  readonly #event_listeners = new Set<(event: EventParams) => void>();
  readonly #notice_listeners = new Map<keyof ClientNotices, Set<(value: never) => void>>();
  #ready: Promise<void> = Promise.resolve();
  #ready_resolve: () => void = () => undefined;

  private constructor(options: LichClientOptions) {
    this.#options = options;
  }

  /** Connects, initializes, and resolves with a ready client. */
  static async connect(options: LichClientOptions): Promise<LichClient> {
    const client = new LichClient(options);
    await client.#open();
    client.#set_state('open');
    return client;
  }

  /** The current state. */
  get state(): ClientState {
    return this.#state;
  }

  /** What the server answered to the latest `initialize` (epoch, methods, limits). */
  get server(): InitializeResult {
    if (this.#server === undefined) throw new Error('not initialized');
    return this.#server;
  }

  /** The last seq delivered for a session (undefined before any). */
  last_seq(session_id: string): number | undefined {
    return this.#seen.get(session_id)?.seq;
  }

  /** Sends a request and resolves with its result. See the class contract for errors. */
  async request<M extends Exclude<MethodName, 'initialize'>>(
    method: M,
    ...[params, options]: undefined extends MethodParams<M>
      ? [params?: MethodParams<M>, options?: RequestOptions]
      : [params: MethodParams<M>, options?: RequestOptions]
  ): Promise<MethodResult<M>> {
    if (this.#state !== 'open') {
      if (this.#state === 'closed') throw new LichRpcError('closed', 'the client is closed');
      await this.#ready;
    }
    return (await this.#send_request(method, params, options)) as MethodResult<M>;
  }

  /**
   * Subscribes to a session's events and keeps the subscription across reconnections. With
   * `after_seq`, the held events after it are replayed first (delivered before this resolves).
   */
  async subscribe(
    session_id: string,
    options: { after_seq?: number; can_approve?: boolean } = {},
  ): Promise<SubscribeOutcome> {
    const can_approve = options.can_approve ?? true;
    // resubscribed from here when nothing was delivered before a reconnection (0: the whole ring)
    this.#subscriptions.set(session_id, { can_approve, after_seq: options.after_seq ?? 0 });
    const seen = this.#seen.get(session_id);
    if (options.after_seq !== undefined && seen !== undefined && options.after_seq < seen.seq) {
      // the caller wants older events again: let them through
      this.#seen.set(session_id, { epoch: seen.epoch, seq: options.after_seq });
    }
    const result = await this.request('events.subscribe', {
      session_id,
      can_approve,
      ...(options.after_seq === undefined
        ? {}
        : { after_seq: options.after_seq, ...(seen === undefined ? {} : { epoch: seen.epoch }) }),
    });
    return { session_id, ...result };
  }

  /** Ends a session's subscription (and stops resubscribing it). */
  async unsubscribe(session_id: string): Promise<void> {
    this.#subscriptions.delete(session_id);
    await this.request('events.unsubscribe', { session_id });
  }

  /**
   * Submits a prompt with a fresh `client_request_id`, and `images` with it when given (see
   * `prompt.submit`). When the connection drops before the answer, it is sent again with the same
   * id once reconnected: the server answers the first ticket rather than running the prompt twice.
   */
  async prompt(
    session_id: string,
    text: string,
    options: {
      queue?: boolean;
      client_request_id?: string;
      attach_mentions?: boolean;
      images?: WirePromptImage[];
    } = {},
  ): Promise<MethodResult<'prompt.submit'>> {
    const params = {
      session_id,
      text,
      client_request_id: options.client_request_id ?? randomUUID(),
      ...(options.queue === undefined ? {} : { queue: options.queue }),
      ...(options.attach_mentions === true ? { attach_mentions: true } : {}),
      ...(options.images === undefined || options.images.length === 0
        ? {}
        : { images: options.images }),
    };
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.request('prompt.submit', params);
      } catch (error) {
        if (!LichRpcError.is_instance(error) || error.kind !== 'disconnected' || attempt >= 3) {
          throw error;
        }
      }
    }
  }

  /** Calls `listener` with every event; returns the function that stops it. */
  on_event(listener: (event: EventParams) => void): () => void {
    this.#event_listeners.add(listener);
    return () => this.#event_listeners.delete(listener);
  }

  /**
   * The events from now on as an async iterator (of one session, when given). It ends when the
   * client closes or `signal` aborts; events wait in memory until read.
   */
  events(
    options: { session_id?: string; signal?: AbortSignal } = {},
  ): AsyncIterableIterator<EventParams> {
    const queue = new EventQueue<EventParams>();
    const stop_events = this.on_event((event) => {
      if (options.session_id === undefined || event.session_id === options.session_id)
        queue.push(event);
    });
    const stop_state = this.on('state', (state) => {
      if (state === 'closed') queue.end();
    });
    const finish = () => {
      stop_events();
      stop_state();
      queue.end();
    };
    options.signal?.addEventListener('abort', finish, { once: true });
    if (this.#state === 'closed' || options.signal?.aborted) finish();
    return queue.iterate(finish);
  }

  /** Calls `listener` on a notice (`state`, `resubscribed`, `error`); returns its remover. */
  on<K extends keyof ClientNotices>(
    kind: K,
    listener: (value: ClientNotices[K]) => void,
  ): () => void {
    let set = this.#notice_listeners.get(kind);
    if (set === undefined) {
      set = new Set();
      this.#notice_listeners.set(kind, set);
    }
    set.add(listener as (value: never) => void);
    return () => set.delete(listener as (value: never) => void);
  }

  /** Closes the link and rejects every pending request. Idempotent. */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#set_state('closed');
    this.#ready_resolve();
    this.#fail_pending('closed', 'the client is closed');
    this.#link?.close();
    this.#link = undefined;
  }

  #notify<K extends keyof ClientNotices>(kind: K, value: ClientNotices[K]): void {
    for (const listener of this.#notice_listeners.get(kind) ?? []) {
      try {
        (listener as (value: ClientNotices[K]) => void)(value);
      } catch {
        // a listener that throws never breaks the client
      }
    }
  }

  #set_state(state: ClientState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#notify('state', state);
  }

  async #open(): Promise<void> {
    let link_ref: TransportLink | undefined;
    const link = await this.#options.transport.connect({
      line: (text) => {
        if (link_ref !== undefined) this.#receive(text, link_ref);
      },
      closed: (info) => {
        if (link_ref !== undefined) this.#lost(link_ref, info);
      },
    });
    link_ref = link;
    this.#link = link;
    try {
      this.#server = (await this.#send_request('initialize', {
        protocol_version: PROTOCOL_VERSION,
        client_info: this.#options.client_info ?? { name: 'lich-client' },
        ...(this.#options.token === undefined ? {} : { token: this.#options.token }),
      })) as InitializeResult;
    } catch (error) {
      link.close();
      this.#link = undefined;
      throw error;
    }
  }

  #send_request(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    const link = this.#link;
    if (link === undefined) {
      return Promise.reject(new LichRpcError('disconnected', 'not connected'));
    }
    const id = this.#next_id++;
    return new Promise((resolve, reject) => {
      const pending: Pending = { resolve, reject };
      if (options.timeout_ms !== undefined) {
        pending.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new LichRpcError('timeout', `${method}: no answer in ${options.timeout_ms} ms`));
        }, options.timeout_ms);
      }
      this.#pending.set(id, pending);
      link.send(
        JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
      );
    });
  }

  #receive(text: string, link: TransportLink): void {
    if (link !== this.#link) return;
    let message: {
      id?: unknown;
      method?: unknown;
      params?: unknown;
      result?: unknown;
      error?: RpcErrorObject;
    };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.method === 'event') {
      this.#deliver(message.params as EventParams);
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id);
    if (pending.timer !== undefined) clearTimeout(pending.timer);
    if (message.error !== undefined) {
      const { code, message: text_message, data } = message.error;
      pending.reject(new LichRpcError('server', text_message, code, data));
    } else {
      pending.resolve(message.result);
    }
  }

  #deliver(event: EventParams): void {
    const seen = this.#seen.get(event.session_id);
    if (seen !== undefined && seen.epoch === event.epoch && event.seq <= seen.seq) return;
    this.#seen.set(event.session_id, { epoch: event.epoch, seq: event.seq });
    for (const listener of this.#event_listeners) {
      try {
        listener(event);
      } catch {
        // a listener that throws never breaks the client
      }
    }
  }

  #fail_pending(kind: 'disconnected' | 'closed', message: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      if (pending.timer !== undefined) clearTimeout(pending.timer);
      pending.reject(new LichRpcError(kind, message));
    }
  }

  #lost(link: TransportLink, info: { code?: number; reason: string }): void {
    if (link !== this.#link) return;
    this.#link = undefined;
    const message = `connection lost (${info.code ?? ''} ${info.reason})`.replace('( ', '(');
    this.#fail_pending('disconnected', message);
    if (this.#state === 'closed') return;
    // a link lost while reconnecting: the attempt under way fails and the loop tries again
    if (this.#state === 'reconnecting') return;
    if (this.#options.reconnect === false || this.#state === 'connecting') {
      void this.close();
      return;
    }
    this.#ready = new Promise((resolve) => {
      this.#ready_resolve = resolve;
    });
    this.#set_state('reconnecting');
    void this.#reconnect();
  }

  async #reconnect(): Promise<void> {
    const options = this.#options.reconnect === false ? {} : (this.#options.reconnect ?? {});
    const max_attempts = options.max_attempts ?? 10;
    let delay = options.initial_delay_ms ?? 100;
    for (let attempt = 1; attempt <= max_attempts; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (this.#state === 'closed') return;
      try {
        await this.#open();
        // resubscribe before the requests that waited go out
        await this.#resubscribe();
        if (this.#link === undefined) throw new Error('the connection was lost again');
        this.#set_state('open');
        this.#ready_resolve();
        return;
      } catch (error) {
        // close() may have run while this attempt was under way
        if (this.state === 'closed') return;
        this.#notify('error', error instanceof Error ? error : new Error(String(error)));
        delay = Math.min(delay * 2, options.max_delay_ms ?? 5000);
      }
    }
    await this.close();
  }

  async #resubscribe(): Promise<void> {
    for (const [session_id, { can_approve, after_seq }] of this.#subscriptions) {
      const seen = this.#seen.get(session_id);
      try {
        const result = await this.#send_request('events.subscribe', {
          session_id,
          can_approve,
          ...(seen === undefined ? { after_seq } : { after_seq: seen.seq, epoch: seen.epoch }),
        });
        const outcome = { session_id, ...(result as Omit<SubscribeOutcome, 'session_id'>) };
        this.#notify('resubscribed', outcome);
      } catch (error) {
        this.#notify('error', error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}

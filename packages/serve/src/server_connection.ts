import type { Subscription } from '@lich/agent';
import type { AuthGate } from './auth_gate.js';
import { to_rpc_error } from './host_error.js';
import type { SplitLine } from './line_splitter.js';
import { METHOD_HANDLERS } from './method_handlers.js';
import { Params } from './params.js';
import {
  EVENT_TYPES,
  type InitializeResult,
  METHOD_NAMES,
  PROTOCOL_VERSION,
  type RpcId,
} from './protocol_methods.js';
import { read_message } from './read_message.js';
import { RpcError } from './rpc_error.js';
import type { ServeCore } from './serve_core.js';

/** True for a line holding an `initialize` request (checked cheaply before a full read). */
function is_initialize(line: SplitLine): boolean {
  if (line.kind !== 'line' || !line.text.includes('initialize')) return false;
  const message = read_message(line.text);
  return message.kind === 'request' && message.method === 'initialize';
}

/** Why the server ends a connection. */
export type CloseReason = 'unauthenticated' | 'rate_limited' | 'timeout' | 'shutdown' | 'too_slow';

/** What a transport gives a connection: a way to send one message and to end it. */
export interface ConnectionPeer {
  /** Sends one message (a JSON text without its `\n`; the transport frames it). */
  send(line: string): void;
  /** Ends the connection after what was sent so far. */
  close(reason: CloseReason, message: string): void;
}

/** A connection's state: waiting for `initialize`, ready, or gone. */
export type ConnectionState = 'new' | 'ready' | 'closed';

/**
 * One client's connection: reads its messages, answers them, and forwards the events of the
 * sessions it subscribed to.
 *
 * Contract:
 * - the first message must be `initialize`; any other request before it is answered
 *   `not_initialized`; a transport that is not authenticated needs the token in it, and a
 *   missing or wrong one is answered `unauthenticated` (or `rate_limited`) and the connection is
 *   closed; on such a transport, anything but `initialize` first (another method, a
 *   notification, a line that is not JSON-RPC) is answered `unauthenticated` and closes it;
 * - requests are handled concurrently: answers may come out of order (match them by id);
 * - more than `limits.max_pending_requests` unanswered requests are refused `rate_limited`;
 * - the events of a subscribed session are sent in `seq` order, the replayed ones before the
 *   `events.subscribe` answer;
 * - `closed()` (the transport went away) ends every subscription; nothing is sent after it.
 */
export class ServerConnection {
  readonly core: ServeCore;
  readonly #peer: ConnectionPeer;
  readonly #auth: AuthGate | undefined;
  readonly label: string;
  #authenticated: boolean;
  #state: ConnectionState = 'new';
  #pending = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #subscriptions = new Map<string, Promise<Subscription | null>>();
  readonly #closed_listeners: (() => void)[] = [];
  /** Who the client said it is. */
  client_name = '';

  constructor(
    core: ServeCore,
    peer: ConnectionPeer,
    options: {
      authenticated: boolean;
      auth?: AuthGate;
      initialize_timeout_ms?: number;
      label: string;
    },
  ) {
    this.core = core;
    this.#peer = peer;
    this.#auth = options.auth;
    this.#authenticated = options.authenticated;
    this.label = options.label;
    if (options.initialize_timeout_ms !== undefined) {
      this.#timer = setTimeout(() => {
        if (this.#state === 'new') this.close('timeout', 'no initialize in time');
      }, options.initialize_timeout_ms);
      this.#timer.unref();
    }
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Calls `listener` once the connection is closed. */
  on_closed(listener: () => void): void {
    this.#closed_listeners.push(listener);
  }

  /** Takes one line (or an oversize report) from the transport. */
  receive(line: SplitLine): void {
    if (this.#state === 'closed') return;
    if (!this.#authenticated && this.#state === 'new' && !is_initialize(line)) {
      // a peer that has shown no token gets nothing more than this answer
      const id = line.kind === 'line' ? read_message(line.text) : undefined;
      this.#send_error(
        id !== undefined && id.kind === 'request' ? id.id : null,
        new RpcError('unauthenticated', 'send initialize with the token first'),
      );
      this.core.log(`${this.label}: closed: no initialize before other messages`);
      this.close('unauthenticated', 'initialize first');
      return;
    }
    if (line.kind === 'oversize') {
      this.#send_error(
        null,
        new RpcError(
          'payload_too_large',
          `a message of ${line.bytes} bytes is over the limit of ${line.limit}`,
        ),
      );
      return;
    }
    const message = read_message(line.text);
    if (message.kind === 'invalid') {
      this.#send_error(message.id, message.error);
      return;
    }
    // the server sends no requests, so there is nothing to answer; notifications have no use yet
    if (message.kind !== 'request') return;
    if (message.method === 'initialize') {
      this.#initialize(message.id, message.params);
      return;
    }
    if (this.#state !== 'ready') {
      this.#send_error(message.id, new RpcError('not_initialized', 'send initialize first'));
      return;
    }
    const handler = METHOD_HANDLERS[message.method as keyof typeof METHOD_HANDLERS];
    if (handler === undefined || !Object.hasOwn(METHOD_HANDLERS, message.method)) {
      this.#send_error(
        message.id,
        new RpcError('method_not_found', `no method '${message.method}'`),
      );
      return;
    }
    if (this.#pending >= this.core.limits.max_pending_requests) {
      this.#send_error(
        message.id,
        new RpcError('rate_limited', 'too many requests unanswered', { retry_after_ms: 100 }),
      );
      return;
    }
    this.#pending += 1;
    const id = message.id;
    let result: Promise<unknown>;
    try {
      result = handler(this, new Params(message.method, message.params));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => {
        this.#pending -= 1;
        this.#send(JSON.stringify({ jsonrpc: '2.0', id, result: value ?? {} }));
      },
      (error: unknown) => {
        this.#pending -= 1;
        this.#send_error(id, to_rpc_error(error));
      },
    );
  }

  /** Answers `invalid_request` (id null) to something the transport could not pass on. */
  refuse(message: string): void {
    this.#send_error(null, new RpcError('invalid_request', message));
  }

  #initialize(id: RpcId, raw: unknown): void {
    if (this.#state !== 'new') {
      this.#send_error(id, new RpcError('not_initialized', 'already initialized'));
      return;
    }
    const params = new Params('initialize', raw);
    if (!this.#authenticated) {
      const token = params.raw('token');
      const verdict = this.#auth?.check(typeof token === 'string' ? token : undefined) ?? {
        ok: false as const,
        reason: 'missing' as const,
      };
      if (!verdict.ok) {
        if (verdict.reason === 'limited') {
          this.#send_error(
            id,
            new RpcError('rate_limited', 'too many failed attempts', {
              retry_after_ms: verdict.retry_after_ms,
            }),
          );
          this.close('rate_limited', 'too many failed attempts');
        } else {
          this.#send_error(
            id,
            new RpcError(
              'unauthenticated',
              verdict.reason === 'missing' ? 'a token is needed' : 'wrong token',
            ),
          );
          this.close('unauthenticated', 'authentication failed');
        }
        this.core.log(`${this.label}: refused: ${verdict.reason}`);
        return;
      }
      this.#authenticated = true;
    }
    let version: unknown;
    let client: unknown;
    try {
      version = params.raw('protocol_version');
      client = params.raw('client_info');
      if (version !== PROTOCOL_VERSION) {
        throw new RpcError(
          'invalid_params',
          `protocol_version ${JSON.stringify(version)} is not supported (this server speaks ${PROTOCOL_VERSION})`,
        );
      }
      if (
        client === null ||
        typeof client !== 'object' ||
        typeof (client as { name?: unknown }).name !== 'string'
      ) {
        throw new RpcError('invalid_params', 'initialize: client_info.name must be a string');
      }
    } catch (error) {
      this.#send_error(id, to_rpc_error(error));
      return;
    }
    this.client_name = (client as { name: string }).name.slice(0, 100);
    this.#state = 'ready';
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const result: InitializeResult = {
      server_info: this.core.server_info,
      protocol_version: PROTOCOL_VERSION,
      epoch: this.core.host.epoch,
      methods: METHOD_NAMES,
      events: EVENT_TYPES,
      limits: this.core.limits,
    };
    this.#send(JSON.stringify({ jsonrpc: '2.0', id, result }));
  }

  /**
   * Subscribes this connection to a session's events (replacing an earlier subscription of the
   * same session) and resolves with the host's answer.
   */
  async subscribe(
    session_id: string,
    options: { after_seq?: number; epoch?: string; can_approve: boolean },
  ): Promise<Subscription> {
    await this.unsubscribe(session_id);
    const made = this.core.host.subscribe(
      session_id,
      (event) => {
        if (this.#state === 'ready') this.#peer.send(this.core.encode_event(event));
      },
      options,
    );
    const held = made.then(
      (subscription) => {
        if (this.#state === 'closed' || this.#subscriptions.get(session_id) !== held) {
          subscription.unsubscribe();
        }
        return subscription;
      },
      () => null,
    );
    this.#subscriptions.set(session_id, held);
    held.then((subscription) => {
      if (subscription === null && this.#subscriptions.get(session_id) === held) {
        this.#subscriptions.delete(session_id);
      }
    });
    return made;
  }

  /** Ends this connection's subscription to a session; resolves false when it had none. */
  async unsubscribe(session_id: string): Promise<boolean> {
    const held = this.#subscriptions.get(session_id);
    if (held === undefined) return false;
    this.#subscriptions.delete(session_id);
    const subscription = await held;
    subscription?.unsubscribe();
    return subscription !== null;
  }

  /** Ends the connection from the server's side: the transport closes it. Idempotent. */
  close(reason: CloseReason, message: string): void {
    if (this.#state === 'closed') return;
    this.#peer.close(reason, message);
    this.closed();
  }

  /** The transport went away: ends every subscription. Idempotent. */
  closed(): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    for (const session_id of [...this.#subscriptions.keys()]) void this.unsubscribe(session_id);
    for (const listener of this.#closed_listeners) listener();
  }

  #send(line: string): void {
    if (this.#state !== 'closed') this.#peer.send(line);
  }

  #send_error(id: RpcId | null, error: RpcError): void {
    this.#send(JSON.stringify({ jsonrpc: '2.0', id, error: error.to_object() }));
  }
}

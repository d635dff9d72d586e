import { type HostEvent, host_event_json, type SessionHost } from '@lich/agent';
import type { AuthGate } from './auth_gate.js';
import { DEFAULT_MAX_IMAGE_BYTES } from './prompt_images.js';
import type { ServerLimits } from './protocol_methods.js';
import type { EventParams } from './protocol_types.js';
import { type ConnectionPeer, ServerConnection } from './server_connection.js';
import { TicketCache } from './ticket_cache.js';

/** The longest message read by default: 1 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/** Requests one connection may have unanswered at once, by default. */
export const DEFAULT_MAX_PENDING_REQUESTS = 64;

/** The server's own name and version, as `initialize` reports them. */
export interface ServerInfo {
  name: string;
  version: string;
}

/** What every transport of one server shares. */
export interface ServeCoreOptions {
  host: SessionHost;
  server_info?: ServerInfo;
  /** Default `DEFAULT_MAX_MESSAGE_BYTES`. */
  max_message_bytes?: number;
  /** Default `DEFAULT_MAX_PENDING_REQUESTS`. */
  max_pending_requests?: number;
  /** The largest picture a prompt takes, decoded; default `DEFAULT_MAX_IMAGE_BYTES` (20 MiB). */
  max_image_bytes?: number;
  /**
   * The longest message of a connection authenticated before it speaks; default room for a
   * picture of `max_image_bytes` in base64 and 1 MiB more (never below `max_message_bytes`).
   */
  max_authenticated_message_bytes?: number;
  /** Reported in `initialize.limits.replay_events` when the host's ring size is known. */
  replay_events?: number;
  /** One line per notable thing (a refused peer, a connection gone); default: nothing. */
  log?: (line: string) => void;
}

/** How one connection is to be treated. */
export interface ConnectOptions {
  /** Authenticated by the transport already (stdio, or a good `Authorization` header). */
  authenticated: boolean;
  /** Checks a token sent in `initialize` when not authenticated yet. */
  auth?: AuthGate;
  /** Close a connection that has not initialized after this long (default: never). */
  initialize_timeout_ms?: number;
  /** For logs: `ws 127.0.0.1:51234`, `stdio`. */
  label: string;
}

/**
 * The protocol side of a server, shared by its transports: the host, the limits, the prompt
 * tickets by `client_request_id`, per-session ordering of prompts, and the open connections.
 *
 * Contract: `connect` never throws; `close_all` closes every connection (their subscriptions
 * end) and is idempotent. The host is the caller's: the core never shuts it down.
 */
export class ServeCore {
  readonly host: SessionHost;
  readonly server_info: ServerInfo;
  readonly limits: ServerLimits;
  readonly tickets = new TicketCache();
  readonly log: (line: string) => void;
  readonly connections = new Set<ServerConnection>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(options: ServeCoreOptions) {
    this.host = options.host;
    this.server_info = options.server_info ?? { name: 'lich', version: '0.0.0' };
    const max_message_bytes = options.max_message_bytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const max_image_bytes = options.max_image_bytes ?? DEFAULT_MAX_IMAGE_BYTES;
    this.limits = {
      max_message_bytes,
      max_pending_requests: options.max_pending_requests ?? DEFAULT_MAX_PENDING_REQUESTS,
      max_image_bytes,
      max_authenticated_message_bytes: Math.max(
        max_message_bytes,
        options.max_authenticated_message_bytes ??
          Math.ceil(max_image_bytes / 3) * 4 + DEFAULT_MAX_MESSAGE_BYTES,
      ),
      ...(options.replay_events === undefined ? {} : { replay_events: options.replay_events }),
    };
    this.log = options.log ?? (() => undefined);
  }

  /** A new connection over `peer`. */
  connect(peer: ConnectionPeer, options: ConnectOptions): ServerConnection {
    const connection = new ServerConnection(this, peer, options);
    this.connections.add(connection);
    connection.on_closed(() => this.connections.delete(connection));
    return connection;
  }

  /**
   * The `event` notification of a host event, as one line: the host's JSON of the event
   * (`host_event_json`, made once per event however many connections it goes to) in the
   * notification's frame.
   */
  encode_event(event: HostEvent): string {
    // the host's event types must fit the protocol's: checked here at compile time
    const params: EventParams = event;
    return `{"jsonrpc":"2.0","method":"event","params":${host_event_json(params as HostEvent)}}`;
  }

  /** Runs `task` after every earlier task of the same session has settled. */
  in_session_order<T>(session_id: string, task: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(session_id) ?? Promise.resolve();
    const run = before.then(task, task);
    const settled = run.catch(() => undefined);
    this.#locks.set(session_id, settled);
    settled.then(() => {
      if (this.#locks.get(session_id) === settled) this.#locks.delete(session_id);
    });
    return run;
  }

  /** Closes every connection with `reason`. */
  close_all(reason: 'shutdown'): void {
    for (const connection of [...this.connections])
      connection.close(reason, 'the server is stopping');
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { AuthGate, type AuthGateOptions } from './auth_gate.js';
import { LineSplitter, type SplitLine } from './line_splitter.js';
import { CLOSE_CODES } from './protocol_errors.js';
import { guard_request, is_wildcard, LOOPBACK_HOSTS } from './request_guard.js';
import { ServeCore, type ServeCoreOptions } from './serve_core.js';
import type { CloseReason } from './server_connection.js';

/** The path of the WebSocket endpoint. */
export const RPC_PATH = '/rpc';

/** Messages one frame may hold; a frame with more is refused whole, unread. */
export const MAX_LINES_PER_FRAME = 256;
/** Messages of one connection handled in one turn of the event loop; the rest wait their turn. */
export const LINES_PER_TICK = 32;
/** Messages waiting on one connection past which its socket stops being read. */
const QUEUE_PAUSE = 4 * MAX_LINES_PER_FRAME;

/** How many `Host` headers a request carries (Node keeps only the first in `headers`). */
function host_headers(raw: readonly string[]): number {
  let count = 0;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.toLowerCase() === 'host') count += 1;
  }
  return count;
}

/** Counts `\n`-separated messages in a frame, stopping once past `most`. */
function count_lines(chunks: readonly Buffer[], most: number): number {
  let count = 0;
  for (const chunk of chunks) {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      if (++count > most) return count;
    }
  }
  const last = chunks[chunks.length - 1];
  // a last line without its \n counts too
  return last !== undefined && last.length > 0 && last[last.length - 1] !== 10 ? count + 1 : count;
}

/** Options of `start_ws_server`. */
export interface WsServerOptions extends ServeCoreOptions {
  /** The secret a client must show (`Authorization: Bearer`, or `initialize.token`). */
  token: string;
  /** Default 0: a free port. */
  port?: number;
  /**
   * The address to bind. Default: 127.0.0.1 and ::1 (where the machine has IPv6). Anything but a
   * loopback address needs `allow_remote`.
   */
  hostname?: string;
  allow_remote?: boolean;
  /** Origins a browser page may connect from, exactly (`http://localhost:5173`). */
  allow_origins?: readonly string[];
  /** Limits on failed authentications. */
  auth?: AuthGateOptions;
  /** A connection must `initialize` within this long (default 10 000 ms). */
  initialize_timeout_ms?: number;
  /** A ping goes out this often; a peer that missed the last one is dropped (default 30 000). */
  ping_interval_ms?: number;
  /**
   * Bytes a connection may have waiting to be sent before it is closed `too_slow` (code 4000):
   * the client reconnects and resubscribes with `after_seq` (default 16 MiB).
   */
  max_buffered_bytes?: number;
}

/** A running WebSocket server. */
export interface WsServer {
  readonly core: ServeCore;
  /** `ws://127.0.0.1:PORT/rpc`. */
  readonly url: string;
  readonly port: number;
  /** The addresses bound. */
  readonly addresses: readonly string[];
  readonly auth: AuthGate;
  /** Stops listening, closes every connection (code 1001). Idempotent. */
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
};

function json_body(status: number, message: string): string {
  return JSON.stringify({ error: { status, message } });
}

/** Refuses an upgrade on the raw socket: a short HTTP answer, then the socket is closed. */
function refuse_socket(
  socket: Duplex,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const body = json_body(status, message);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  socket.on('error', () => undefined);
  setTimeout(() => socket.destroy(), 1000).unref();
}

function answer(response: ServerResponse, status: number, body: string): void {
  // no Access-Control-* header, ever: a browser page gets nothing from this server
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  response.end(body);
}

function bearer(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

function listen(server: Server, port: number, hostname: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const on_error = (error: Error) => reject(error);
    server.once('error', on_error);
    server.listen({ port, host: hostname, exclusive: true }, () => {
      server.off('error', on_error);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

const CLOSE_FOR: Record<CloseReason, number> = {
  unauthenticated: CLOSE_CODES.policy_violation,
  rate_limited: CLOSE_CODES.policy_violation,
  timeout: CLOSE_CODES.policy_violation,
  shutdown: CLOSE_CODES.going_away,
  too_slow: CLOSE_CODES.too_slow,
};

/**
 * Serves the protocol over WebSocket on loopback.
 *
 * Contract:
 * - binds 127.0.0.1 and ::1 (the same port) unless told another address, which must be loopback
 *   or come with `allow_remote` (else this rejects);
 * - every HTTP request passes `guard_request` first (Host, Origin, no query string), answered
 *   403/400 with nothing else done; a request with more than one `Host` header is answered 400; `GET /health` answers `{"ok":true}` and nothing more; no
 *   response carries a CORS header;
 * - an upgrade with `Authorization: Bearer` is checked (401 wrong, 429 with `Retry-After` for a
 *   wrong one while failures are over their budget; the right token always gets in) before it is
 *   accepted; one without must send the token in `initialize`, as its first message, or be closed;
 * - one JSON object per text frame (a frame may also hold up to `MAX_LINES_PER_FRAME`
 *   `\n`-separated objects; a frame with more is refused whole); a frame over `max_message_bytes`
 *   is answered `payload_too_large`, one over twice that closes the connection with 1009; binary
 *   frames are refused; no compression; a connection's messages are handled `LINES_PER_TICK` per
 *   turn of the event loop, its socket paused while many wait;
 * - a connection that reads too slowly is closed with 4000 rather than losing events.
 */
export async function start_ws_server(options: WsServerOptions): Promise<WsServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  const loopback = LOOPBACK_HOSTS.includes(hostname);
  if (!loopback && options.allow_remote !== true) {
    throw new Error(`binding ${hostname} exposes Lich to the network: it needs allow_remote`);
  }
  const { WebSocketServer } = await import('ws');
  const core = new ServeCore(options);
  const auth = new AuthGate(options.token, options.auth);
  const max_message = core.limits.max_message_bytes;
  const max_authenticated = core.limits.max_authenticated_message_bytes ?? max_message;
  const max_buffered = options.max_buffered_bytes ?? 16 * 1024 * 1024;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: max_message * 2,
    perMessageDeflate: false,
    clientTracking: true,
  });
  // a peer that showed its token on the upgrade may send frames with pictures in them; one that
  // has not shown it yet never makes the server hold more than the small frame
  const wss_authenticated = new WebSocketServer({
    noServer: true,
    maxPayload: max_authenticated + max_message,
    perMessageDeflate: false,
    clientTracking: true,
  });
  let port = options.port ?? 0;
  const guard = () => ({
    port,
    ...(loopback ? {} : { remote_host: hostname }),
    ...(options.allow_origins === undefined ? {} : { allow_origins: options.allow_origins }),
  });

  const on_request = (request: IncomingMessage, response: ServerResponse) => {
    if (host_headers(request.rawHeaders) > 1) {
      return answer(response, 400, json_body(400, 'more than one Host header'));
    }
    const refused = guard_request(request.headers, request.url, guard());
    if (refused !== null)
      return answer(response, refused.status, json_body(refused.status, refused.message));
    if (request.method === 'GET' && request.url === '/health') {
      return answer(response, 200, '{"ok":true}');
    }
    if (request.url === RPC_PATH)
      return answer(response, 426, json_body(426, 'a WebSocket upgrade is needed'));
    answer(response, 404, json_body(404, 'not found'));
  };

  const on_upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (host_headers(request.rawHeaders) > 1) {
      core.log('refused an upgrade: more than one Host header');
      return refuse_socket(socket, 400, 'more than one Host header');
    }
    const refused = guard_request(request.headers, request.url, guard());
    if (refused !== null) {
      core.log(`refused an upgrade: ${refused.message}`);
      return refuse_socket(socket, refused.status, refused.message);
    }
    if (request.url !== RPC_PATH) return refuse_socket(socket, 404, 'not found');
    const token = bearer(request.headers.authorization);
    let authenticated = false;
    if (token !== undefined) {
      const verdict = auth.check(token ?? '');
      if (!verdict.ok) {
        core.log(`refused an upgrade: ${verdict.reason}`);
        if (verdict.reason === 'limited') {
          return refuse_socket(socket, 429, 'too many failed attempts', {
            'Retry-After': String(Math.ceil(verdict.retry_after_ms / 1000)),
          });
        }
        return refuse_socket(socket, 401, 'wrong token');
      }
      authenticated = true;
    }
    (authenticated ? wss_authenticated : wss).handleUpgrade(request, socket, head, (ws) =>
      attach(ws, request, authenticated),
    );
  };

  const attach = (ws: WebSocket, request: IncomingMessage, authenticated: boolean) => {
    const label = `ws ${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`;
    const alive = { value: true };
    const connection = core.connect(
      {
        send: (line) => {
          if (ws.readyState !== ws.OPEN) return;
          if (ws.bufferedAmount > max_buffered) {
            connection.close('too_slow', 'the client reads too slowly: resubscribe with after_seq');
            return;
          }
          ws.send(line);
        },
        close: (reason, message) => {
          ws.close(CLOSE_FOR[reason], message.slice(0, 120));
          // a peer that never answers the close handshake is cut after a while
          setTimeout(() => ws.terminate(), 2000).unref();
        },
      },
      {
        authenticated,
        auth,
        initialize_timeout_ms: options.initialize_timeout_ms ?? 10_000,
        label,
      },
    );
    // lines wait here and are handled LINES_PER_TICK at a time, so one peer's flood holds the
    // event loop for a few milliseconds at most before other connections get their turn
    let queue: SplitLine[] = [];
    let next = 0;
    let scheduled = false;
    let paused = false;
    const drain = () => {
      scheduled = false;
      let handled = 0;
      while (next < queue.length && handled < LINES_PER_TICK && connection.state !== 'closed') {
        connection.receive(queue[next++]!);
        handled += 1;
      }
      if (next >= queue.length || connection.state === 'closed') {
        queue = [];
        next = 0;
        if (paused) {
          paused = false;
          ws.resume();
        }
        return;
      }
      scheduled = true;
      setImmediate(drain);
    };
    ws.on('message', (data, is_binary) => {
      if (is_binary) {
        connection.refuse('binary frames are not read: send JSON text');
        return;
      }
      const chunks = Array.isArray(data)
        ? data
        : [Buffer.isBuffer(data) ? data : Buffer.from(data)];
      if (count_lines(chunks, MAX_LINES_PER_FRAME) > MAX_LINES_PER_FRAME) {
        connection.refuse(
          `a frame holds at most ${MAX_LINES_PER_FRAME} messages; none of this one was read`,
        );
        return;
      }
      // a frame is a message: its end ends the last line, \n or not
      const splitter = new LineSplitter(authenticated ? max_authenticated : max_message);
      for (const chunk of chunks) queue.push(...splitter.push(chunk));
      queue.push(...splitter.end());
      if (queue.length - next > QUEUE_PAUSE && !paused) {
        paused = true;
        ws.pause();
      }
      if (!scheduled) drain();
    });
    ws.on('pong', () => {
      alive.value = true;
    });
    ws.on('close', () => connection.closed());
    ws.on('error', (error) => core.log(`${label}: ${error.message}`));
    heartbeats.set(ws, alive);
  };

  const heartbeats = new Map<WebSocket, { value: boolean }>();
  const ping_timer = setInterval(() => {
    for (const [ws, alive] of heartbeats) {
      if (ws.readyState > ws.OPEN) {
        heartbeats.delete(ws);
        continue;
      }
      if (!alive.value) {
        ws.terminate();
        heartbeats.delete(ws);
        continue;
      }
      alive.value = false;
      ws.ping();
    }
  }, options.ping_interval_ms ?? 30_000);
  ping_timer.unref();

  const make_server = () => {
    const server = createServer({ headersTimeout: 10_000, requestTimeout: 10_000 });
    server.on('request', on_request);
    server.on('upgrade', on_upgrade);
    return server;
  };

  const servers: Server[] = [];
  const addresses: string[] = [];
  try {
    const first = make_server();
    port = await listen(first, port, hostname);
    servers.push(first);
    addresses.push(hostname);
    if (hostname === '127.0.0.1') {
      const second = make_server();
      try {
        await listen(second, port, '::1');
        servers.push(second);
        addresses.push('::1');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // no IPv6 here: 127.0.0.1 alone is fine; anything else is a real failure
        if (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT') throw error;
      }
    }
  } catch (error) {
    clearInterval(ping_timer);
    for (const server of servers) server.close();
    throw error;
  }

  const url_host =
    hostname === '127.0.0.1' || hostname === 'localhost' || is_wildcard(hostname)
      ? '127.0.0.1'
      : hostname.includes(':')
        ? `[${hostname}]`
        : hostname;
  let closing: Promise<void> | undefined;
  return {
    core,
    url: `ws://${url_host}:${port}${RPC_PATH}`,
    port,
    addresses,
    auth,
    close: () => {
      closing ??= (async () => {
        clearInterval(ping_timer);
        core.close_all('shutdown');
        // the close frames go out; a peer that does not answer them is cut
        await Promise.race([
          Promise.all(
            [...wss.clients, ...wss_authenticated.clients].map(
              (ws) =>
                new Promise<void>((resolve) =>
                  ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()),
                ),
            ),
          ),
          new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
        ]);
        for (const ws of [...wss.clients, ...wss_authenticated.clients]) ws.terminate();
        await Promise.all(
          servers.map(
            (server) =>
              new Promise<void>((resolve) => {
                server.close(() => resolve());
                server.closeAllConnections();
              }),
          ),
        );
        await Promise.all(
          [wss, wss_authenticated].map(
            (server) => new Promise<void>((resolve) => server.close(() => resolve())),
          ),
        );
      })();
      return closing;
    },
  };
}

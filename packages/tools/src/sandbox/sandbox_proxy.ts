import {
  createServer,
  request as http_request,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { connect, type Socket } from 'node:net';

/** What `start_allow_list_proxy` started: where it listens, and `close` to stop it. */
export interface AllowListProxy {
  /**
   * Where it listens: a unix socket path, a loopback TCP port, or nowhere (`handoff`: connections
   * are handed to `accept`).
   */
  address: { socket: string } | { port: number } | { handoff: true };
  /** Serves a connection accepted elsewhere (the sandbox's forwarder hands them over). */
  accept(socket: Socket): void;
  /** Hosts refused so far (for the result's `[sandbox]` line). */
  refused: ReadonlySet<string>;
  /** Stops listening and cuts every open connection. Never rejects. */
  close(): Promise<void>;
}

/**
 * A `host` or `host:port` from a request target, lower-cased, a trailing dot and IPv6 brackets
 * removed; `default_port` when none is written. Pure; `undefined` for anything else.
 */
export function split_host_port(
  target: string,
  default_port: number,
): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(target.trim());
  if (!match) return undefined;
  const host = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  if (host === '') return undefined;
  if (match[3] === undefined) return { host, port: default_port };
  const port = Number(match[3]);
  return port >= 1 && port <= 65_535 ? { host, port } : undefined;
}

/**
 * Whether `host:port` is on the list: an entry is a host (`registry.npmjs.org`, `127.0.0.1`), a
 * `*.` wildcard for its subdomains (`*.github.com`, which does not match `github.com` itself), and
 * either may end in `:port` to allow that port only.
 *
 * Contract: pure; comparison ignores case and a trailing dot.
 */
export function host_allowed(host: string, port: number, allowed: readonly string[]): boolean {
  const wanted = host.toLowerCase().replace(/\.$/, '');
  for (const raw of allowed) {
    const entry = raw.trim().toLowerCase();
    const wildcard = entry.startsWith('*.');
    const parsed = split_host_port(wildcard ? entry.slice(2) : entry, 0);
    if (parsed === undefined) continue;
    if (parsed.port !== 0 && parsed.port !== port) continue;
    if (wildcard ? wanted.endsWith(`.${parsed.host}`) : wanted === parsed.host) return true;
  }
  return false;
}

function refuse(socket: Socket, host: string): void {
  const body = `Refused by the Lich sandbox: ${host} is not in sandbox.network.\n`;
  socket.end(
    `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Connections one proxy serves at once (a command flooding it is refused the rest). */
const MAX_HANDED_CONNECTIONS = 256;

/** Headers a proxy must not pass on. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'proxy-authorization',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Starts an HTTP proxy that lets commands reach only the listed hosts: `CONNECT host:port` (what
 * HTTPS clients send through `HTTPS_PROXY`) opens a tunnel, a request in absolute form
 * (`GET http://host/path`, what `HTTP_PROXY` clients send) is forwarded; any other host gets
 * `403` with a line saying why. It listens on the unix socket `listen.socket` (bound into a
 * bubblewrap sandbox, whose network namespace cannot reach the host's loopback) or on a loopback
 * TCP port (`listen.port: 0` picks one; for `sandbox-exec`, where the profile lets commands reach
 * only that port), or nowhere (`handoff`): the connections a sandbox's forwarder accepted inside
 * its network namespace are handed to `accept` (see `sandbox_forwarder.ts`).
 *
 * Contract: rejects only when it cannot listen; the host side resolves names, so a command needs
 * no DNS; connections to a listed host that fail give `502`.
 */
export function start_allow_list_proxy(
  listen: { socket: string } | { port: 0 } | { handoff: true },
  allowed: readonly string[],
): Promise<AllowListProxy> {
  const sockets = new Set<Socket>();
  const refused = new Set<string>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((request, response) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('This is the Lich sandbox proxy: send absolute-form requests or CONNECT.\n');
      return;
    }
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.protocol !== 'http:' || !host_allowed(host, port, allowed)) {
      refused.add(host);
      refuse(request.socket, `${host}:${port}`);
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = http_request(
      { host, port, method: request.method, path: `${url.pathname}${url.search}`, headers },
      (answer: IncomingMessage) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`The Lich sandbox proxy could not reach ${host}:${port}: ${error.message}\n`);
    });
    request.pipe(upstream);
  });
  server.on('connection', track);
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = split_host_port(request.url ?? '', 443);
    if (target === undefined || !host_allowed(target.host, target.port, allowed)) {
      refused.add(target?.host ?? String(request.url));
      refuse(client, request.url ?? '?');
      return;
    }
    const upstream = connect(target.port, target.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    track(upstream);
    upstream.on('error', (error) => {
      if (client.writable) {
        client.end(
          `HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\nThe Lich sandbox proxy could not reach ${request.url}: ${error.message}\n`,
        );
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const accept = (socket: Socket) => {
    if (sockets.size >= MAX_HANDED_CONNECTIONS) {
      socket.destroy();
      return;
    }
    server.emit('connection', socket);
    socket.resume();
  };
  const close = () =>
    new Promise<void>((done) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return done();
      server.close(() => done());
    });
  if ('handoff' in listen) {
    return Promise.resolve({ address: { handoff: true }, refused, accept, close });
  }
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const on_listening = () => {
      server.off('error', reject);
      const where = server.address();
      const address =
        'socket' in listen
          ? { socket: listen.socket }
          : { port: typeof where === 'object' && where !== null ? where.port : 0 };
      resolve({ address, refused, accept, close });
    };
    if ('socket' in listen) server.listen(listen.socket, on_listening);
    else server.listen(0, '127.0.0.1', on_listening);
  });
}

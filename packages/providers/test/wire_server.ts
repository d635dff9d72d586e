import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as create_tls_server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** The self-signed certificate (CN localhost, IP 127.0.0.1) the https cases serve. */
export const CERT_PATH = new URL('./fixtures/localhost_cert.pem', import.meta.url);
const KEY_PATH = new URL('./fixtures/localhost_key.pem', import.meta.url);

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A server on 127.0.0.1 that counts connections and tells when one closes. */
export interface WireServer {
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections the server has seen close. */
  readonly closed: number;
  /** Resolves once `count` connections have closed; rejects after `timeout_ms`. */
  wait_closed(count: number, timeout_ms?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a plain or TLS server that answers every request with `handler`. */
export async function start_wire_server(
  handler: Handler,
  options: { tls?: boolean } = {},
): Promise<WireServer> {
  const server: Server = options.tls
    ? create_tls_server({ cert: readFileSync(CERT_PATH), key: readFileSync(KEY_PATH) }, handler)
    : createServer(handler);
  const sockets = new Set<Socket>();
  let connections = 0;
  let closed = 0;
  const waiters: (() => void)[] = [];
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => {
      closed += 1;
      sockets.delete(socket);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    get closed() {
      return closed;
    },
    async wait_closed(count, timeout_ms = 2_000) {
      const deadline = Date.now() + timeout_ms;
      while (closed < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${closed} of ${count} connections closed`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with an event stream of `events` `data:` lines, `delay_ms` apart. */
export function sse_handler(events: number, delay_ms = 0): Handler {
  return (request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_wire' });
      for (let index = 0; index < events; index++) {
        if (index > 0 && delay_ms > 0) await new Promise((wake) => setTimeout(wake, delay_ms));
        if (response.destroyed) return;
        response.write(`data: {"n":${index}}\n\n`);
      }
      response.end('data: [DONE]\n\n');
    });
  };
}

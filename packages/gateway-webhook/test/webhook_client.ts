/** A signing HTTP client for the webhook tests: posts like a Standard Webhooks sender. */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signed_headers } from '../src/standard_webhooks.js';

export const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

/** POSTs raw bytes with the given headers. */
export function post_raw(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(text) as Record<string, unknown>;
        } catch {
          parsed = { raw: text };
        }
        resolve({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

let counter = 0;

/** POSTs `payload` as JSON, signed with `key` (id `msg_<n>` unless given). */
export function post_signed(
  url: string,
  key: Buffer,
  payload: unknown,
  options: { id?: string; now_s?: number; headers?: Record<string, string> } = {},
): Promise<Answer> {
  counter += 1;
  const body = JSON.stringify(payload);
  const id = options.id ?? `msg_${Date.now()}_${counter}`;
  return post_raw(url, body, {
    'content-type': 'application/json',
    ...signed_headers(key, id, body, options.now_s),
    ...options.headers,
  });
}

/** A callback receiver on 127.0.0.1 answering with `statuses` in turn (then 200). */
export interface CallbackServer {
  url: string;
  received: { headers: IncomingMessage['headers']; body: string; status: number }[];
  until(count: number, timeout_ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function start_callback_server(statuses: number[] = []): Promise<CallbackServer> {
  const received: CallbackServer['received'] = [];
  const queue = [...statuses];
  let notify = () => {};
  const server: Server = createServer((incoming, response) => {
    const parts: Buffer[] = [];
    incoming.on('data', (part: Buffer) => parts.push(part));
    incoming.on('end', () => {
      const status = queue.shift() ?? 200;
      received.push({ headers: incoming.headers, body: Buffer.concat(parts).toString(), status });
      response.writeHead(status).end();
      notify();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    until: (count, timeout_ms = 10_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} callbacks`)),
          timeout_ms,
        );
        notify = () => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        };
        notify();
      }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

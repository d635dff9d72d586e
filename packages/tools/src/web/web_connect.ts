import type { IncomingMessage } from 'node:http';
import type { LookupFunction, Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { WebTarget } from './web_target.js';

/** One request a connector sends: to `target.address`, never to a fresh resolution of the name. */
export interface WebConnectRequest {
  target: WebTarget;
  headers: Readonly<Record<string, string>>;
  /** The body is cut after this many bytes (decoded), and `truncated` is set. */
  max_bytes: number;
  signal: AbortSignal;
}

/** What came back: the status, the headers (lower-case names) and the body, maybe cut. */
export interface WebConnectResponse {
  status: number;
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
  truncated: boolean;
}

/**
 * Sends one request (no redirect followed). Tests inject one that records its calls, to prove a
 * refused URL never reaches it.
 */
export type WebConnector = (request: WebConnectRequest) => Promise<WebConnectResponse>;

/**
 * A `lookup` that answers every name with the checked address, so `node:http(s)` connects there
 * and nowhere else (no second resolution a DNS rebinding could change).
 */
function pinned_lookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

function header_map(message: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

async function decoded(message: IncomingMessage): Promise<Readable> {
  const encoding = (message.headers['content-encoding'] ?? '').toLowerCase().trim();
  if (encoding === '' || encoding === 'identity') return message;
  const zlib = await import('node:zlib');
  if (encoding === 'gzip' || encoding === 'x-gzip') return message.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return message.pipe(zlib.createInflate());
  if (encoding === 'br') return message.pipe(zlib.createBrotliDecompress());
  throw new Error(`the server sent an encoding Lich cannot read (${encoding})`);
}

/** Reads at most `max_bytes` of `stream`; stops reading (and destroys it) once past them. */
async function read_capped(
  stream: Readable,
  max_bytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    if (size + buffer.length > max_bytes) {
      chunks.push(buffer.subarray(0, max_bytes - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

/**
 * The connector `web_fetch` uses: `node:http` or `node:https`, no proxy, no pooled connection,
 * the name pinned to the checked address. TLS still verifies the certificate against the host
 * name of the URL (and sends it as SNI).
 *
 * Contract: rejects on a network error, a TLS error or the abort; as a last line, a socket that
 * connected anywhere but the checked address is destroyed before a byte is sent.
 */
export const node_web_connector: WebConnector = async ({ target, headers, max_bytes, signal }) => {
  const { url, address, family } = target;
  const module = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<WebConnectResponse>((resolve, reject) => {
    const request = module.request(url, {
      method: 'GET',
      headers,
      agent: false,
      lookup: pinned_lookup(address, family),
      family,
      signal,
    });
    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const remote = socket.remoteAddress?.replace(/^::ffff:/, '');
        if (remote !== undefined && remote !== address.replace(/^::ffff:/, '')) {
          request.destroy(new Error(`connected to ${remote}, not the checked ${address}`));
        }
      });
    });
    request.on('error', reject);
    request.on('response', (message) => {
      decoded(message)
        .then((stream) => read_capped(stream, max_bytes))
        .then(({ body, truncated }) => {
          resolve({
            status: message.statusCode ?? 0,
            headers: header_map(message),
            body,
            truncated,
          });
        })
        .catch(reject)
        .finally(() => request.destroy());
    });
    request.end();
  });
};

/** What `post_json` needs of `node:http` / `node:https`: a kept-alive client, body decoding, read-off. */
import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { HeaderLookup } from './response_headers.js';

/**
 * How long a kept-alive connection may sit idle before it is closed (undici's default as well);
 * Node's agent makes it a second shorter than a server's `keep-alive: timeout=N` that asks for less.
 */
export const FREE_SOCKET_TIMEOUT_MS = 4_000;
/** How long the rest of a body left early may take to end before its connection is closed. */
export const RELEASE_WAIT_MS = 100;

/** One protocol's `request` function and its keep-alive agent. */
export interface Client {
  request: typeof import('node:http').request;
  agent: Agent;
}
const clients = new Map<string, Promise<Client>>();

/**
 * `node:http` or `node:https` with one keep-alive agent each, loaded on the first request of its
 * protocol (a process that never posts pays nothing). Node's agent unrefs a free socket, so it
 * never holds the process open, and closes it after `FREE_SOCKET_TIMEOUT_MS` idle.
 */
export function client_for(protocol: string): Promise<Client> | undefined {
  if (protocol !== 'http:' && protocol !== 'https:') return undefined;
  let client = clients.get(protocol);
  if (client === undefined) {
    const load = protocol === 'https:' ? import('node:https') : import('node:http');
    client = load.then((module) => ({
      request: module.request,
      agent: new module.Agent({ keepAlive: true, timeout: FREE_SOCKET_TIMEOUT_MS }),
    }));
    clients.set(protocol, client);
  }
  return client;
}

/** `Headers.get` over Node's header object. */
export function lookup(headers: IncomingHttpHeaders): HeaderLookup {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** The body decoded when the server compressed it although nothing asked for that. */
export async function decoded(response: IncomingMessage): Promise<Readable> {
  const coding = response.headers['content-encoding']?.trim().toLowerCase();
  if (coding === undefined || coding === '' || coding === 'identity') return response;
  const zlib = await import('node:zlib');
  const { pipeline } = await import('node:stream');
  const sync = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const brotli = zlib.constants.BROTLI_OPERATION_FLUSH;
  const stage =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip(sync)
      : coding === 'deflate'
        ? zlib.createInflate(sync)
        : coding === 'br'
          ? zlib.createBrotliDecompress({ flush: brotli, finishFlush: brotli })
          : undefined;
  // an error anywhere destroys the stage with that error, which its iterator rethrows
  return stage === undefined ? response : pipeline(response, stage, () => undefined);
}

/** Reads the rest of `response` off so its socket goes back to the agent; closes it past the wait. */
export function read_off(response: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Node hands the socket back to the agent a tick after 'end'
    const done = () => {
      clearTimeout(timer);
      setImmediate(resolve);
    };
    if (response.readableEnded) return done();
    timer = setTimeout(() => {
      response.destroy();
      resolve();
    }, RELEASE_WAIT_MS);
    response.on('error', done).once('end', done).once('close', done).resume();
  });
}

import type { Agent, ClientRequest, RequestOptions } from 'node:http';
import { urlToHttpOptions } from 'node:url';
import type { HttpExchange, HttpRequest, Transport } from './http_exchange.js';
import type { JsonBytes } from './json_bytes.js';
import { keep_alive_agent } from './keep_alive_agent.js';
import { body_chunks, type Opened, push_body } from './node_body.js';
import type { ProviderErrorContext } from './to_provider_error.js';
import { connection_error } from './to_provider_error.js';

/** Sent unless the caller's headers set them: what `fetch` sends, so servers see no change. */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { accept: '*/*', 'user-agent': 'node' };

interface Client {
  request(options: RequestOptions): ClientRequest;
  agent: Agent;
}

/** A URL and the request options Node would make of it (`urlToHttpOptions`). */
interface Target {
  url: URL;
  options: RequestOptions;
}

/** The targets of the URLs posted to lately: a provider posts to one URL call after call. */
const TARGETS = new Map<string, Target>();
const MAX_TARGETS = 16;

/** The target of `href`, parsed once. Throws a `TypeError` for an invalid URL, as `new URL`. */
function target_of(href: string): Target {
  let target = TARGETS.get(href);
  if (target === undefined) {
    const url = new URL(href);
    target = { url, options: urlToHttpOptions(url) };
    if (TARGETS.size >= MAX_TARGETS) TARGETS.clear();
    TARGETS.set(href, target);
  }
  return target;
}

let http_client: Promise<Client> | undefined;
let https_client: Promise<Client> | undefined;

/**
 * `node:http` or `node:https` with one keep-alive agent each, loaded on the first request to such a
 * URL (so a process that never posts pays nothing). Retries and failover to the same host reuse the
 * connection. An idle socket in a keep-alive agent is unref'd by Node (`Agent#keepSocketAlive`),
 * so it never holds the process open; a socket in use is ref'd again.
 */
function client_for(protocol: string): Promise<Client> | undefined {
  if (protocol === 'http:') {
    http_client ??= import('node:http').then((http) => ({
      request: http.request,
      agent: keep_alive_agent(http),
    }));
    return http_client;
  }
  if (protocol === 'https:') {
    https_client ??= import('node:https').then((https) => ({
      request: https.request,
      agent: keep_alive_agent(https),
    }));
    return https_client;
  }
  return undefined;
}

/**
 * `Headers.get` over Node's raw header list: any case, repeated headers joined with `, `. The list
 * is read into a map on the first `get`, once; Node's own `headers` object is never made.
 */
function raw_header_lookup(raw: readonly string[]): HttpExchange['headers'] {
  let map: Map<string, string> | undefined;
  return {
    get(name: string): string | null {
      if (map === undefined) {
        map = new Map();
        for (let index = 0; index + 1 < raw.length; index += 2) {
          const key = (raw[index] as string).toLowerCase();
          const value = raw[index + 1] as string;
          const known = map.get(key);
          map.set(key, known === undefined ? value : `${known}, ${value}`);
        }
      }
      return map.get(name.toLowerCase()) ?? null;
    },
  };
}

/**
 * A `Headers` of the raw list. Made only when asked for: the first `Headers` of a process loads
 * undici (~20 ms), which is what this transport avoids.
 */
function to_headers(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index] as string, raw[index + 1] as string);
    } catch {
      // a name or value `Headers` refuses is left out, as fetch leaves it out
    }
  }
  return headers;
}

/**
 * The request's header lines as Node takes them whole, `[name, value, …]`, validated once as the
 * head is written (a `headers` object costs a `setHeader` per name, each validated and stored,
 * then looked up for `Host` and `Expect`). As `setHeader` would: a later name overrides an earlier
 * one in any case; `Host` is added unless given (the URL's host, IPv6 in brackets, the port
 * unless the scheme's own), and `Authorization` for a URL with credentials unless given.
 */
function header_list(target: Target, headers: Record<string, string>): string[] {
  const list: string[] = [];
  const at = new Map<string, number>();
  for (const name of Object.keys(headers)) {
    const key = name.toLowerCase();
    const index = at.get(key);
    if (index === undefined) {
      at.set(key, list.length);
      list.push(name, headers[name] as string);
    } else {
      list[index] = name;
      list[index + 1] = headers[name] as string;
    }
  }
  if (!at.has('host')) list.push('Host', target.url.host);
  const { auth } = target.options;
  if (auth && !at.has('authorization')) {
    list.push('Authorization', `Basic ${Buffer.from(auth).toString('base64')}`);
  }
  return list;
}

/** The redirects `fetch` follows too, keeping the method and the body. */
const REPEAT_REDIRECTS = new Set([307, 308]);
const MAX_REDIRECTS = 20;
/** What `fetch` drops when a redirect leads to another origin. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * Sends one POST of `payload` (`request.body`) to `target`; resolves when the answer's headers
 * arrived.
 */
async function open(
  target: Target,
  headers: Record<string, string>,
  request: HttpRequest,
  payload: JsonBytes,
  context: ProviderErrorContext,
): Promise<Opened> {
  const { protocol } = target.url;
  const client = client_for(protocol);
  if (client === undefined) {
    throw connection_error(
      new Error(`unsupported protocol '${protocol}' (use http: or https:)`),
      context,
    );
  }
  const { request: send, agent } = await client;
  const signal = request.signal;
  if (signal.aborted) throw signal.reason;
  return new Promise<Opened>((resolve, reject) => {
    const outgoing = send({
      ...target.options,
      method: 'POST',
      agent,
      headers: header_list(target, headers),
    });
    let settled = false;
    let late_error: unknown;
    const on_abort = () => {
      outgoing.destroy();
      if (settled) return;
      settled = true;
      reject(signal.reason);
    };
    const detach = () => signal.removeEventListener('abort', on_abort);
    signal.addEventListener('abort', on_abort, { once: true });
    // Stays attached for the request's life: an 'error' nobody listens to would crash the process.
    outgoing.on('error', (error) => {
      if (settled) {
        late_error ??= error;
        return;
      }
      settled = true;
      detach();
      reject(connection_error(error, context));
    });
    outgoing.on('response', (response) => {
      if (settled) {
        response.destroy();
        return;
      }
      settled = true;
      const opened: Opened = {
        outgoing,
        response,
        headers: raw_header_lookup(response.rawHeaders),
        late_error: () => late_error,
        detach,
        released: false,
        is_settled: false,
        settled: () => {
          opened.is_settled = true;
        },
      };
      resolve(opened);
    });
    for (const chunk of payload.chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

/**
 * A `Transport` over `node:http` / `node:https`: a POST with `content-length`, the answer's body
 * streamed as it arrives. Unlike `fetch` on Node 20 it does not start undici's WebAssembly HTTP
 * parser, whose background compilation delays the exit of a short-lived process by 40–60 ms.
 * Sends `accept: *\/*` and `user-agent: node` unless told otherwise, and no `accept-encoding`
 * (so no server buffers an event stream to compress it); a compressed body is decoded anyway.
 * Follows a 307 or 308 as `fetch` does (same method and body, at most 20, `authorization` and
 * cookies left out for another origin); any other status, 301–303 included, is the answer.
 *
 * Contract: as `Transport`. A failure before the headers is a `network` `ProviderError` naming
 * the cause (`connect ECONNREFUSED 127.0.0.1:9`, `getaddrinfo ENOTFOUND host`, `socket hang up`,
 * a TLS error); after them, a `stream` one. An abort of `request.signal` rejects at once with the
 * signal's reason and destroys the request and its socket.
 */
export const node_transport: Transport = async (request) => {
  const context: ProviderErrorContext = { provider: request.provider, model: request.model };
  let target = target_of(request.url);
  // Bytes, not a string: a string body would be joined to the header text and copied (a history
  // of a few hundred messages is 100 KB a request), and its length measured apart.
  const payload = request.body;
  let headers: Record<string, string> = {
    ...DEFAULT_HEADERS,
    ...request.headers,
    'content-length': String(payload.length),
  };
  for (let redirects = 0; ; redirects++) {
    const opened = await open(target, headers, request, payload, context);
    const { response } = opened;
    const lookup = opened.headers;
    const location = REPEAT_REDIRECTS.has(response.statusCode ?? 0)
      ? (lookup.get('location') ?? undefined)
      : undefined;
    if (location !== undefined) {
      opened.detach();
      response.resume(); // read off, so the connection can serve the next hop
      if (redirects === MAX_REDIRECTS) {
        throw connection_error(new Error(`more than ${MAX_REDIRECTS} redirects`), context);
      }
      let next: URL;
      try {
        next = new URL(location, target.url);
      } catch {
        throw connection_error(new Error(`a redirect to an invalid URL: '${location}'`), context);
      }
      if (next.origin !== target.url.origin) {
        headers = Object.fromEntries(
          Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.has(name.toLowerCase())),
        );
      }
      target = target_of(next.href);
      continue;
    }
    const raw = response.rawHeaders;
    let all: Headers | undefined;
    let body: AsyncGenerator<Uint8Array, void, undefined> | undefined;
    return {
      status: response.statusCode ?? 0,
      status_text: response.statusMessage ?? '',
      headers: lookup,
      all_headers: () => {
        all ??= to_headers(raw);
        return all;
      },
      // made on first use: a stream read through `each_chunk` never needs it
      get body() {
        body ??= body_chunks(opened, context, request.signal);
        return body;
      },
      each_chunk: (on_chunk) => push_body(opened, context, request.signal, on_chunk),
      release: () => {
        opened.released = true;
        if (opened.is_settled) return Promise.resolve();
        return new Promise<void>((resolve) => {
          opened.settled = () => {
            opened.is_settled = true;
            resolve();
          };
        });
      },
    };
  }
};

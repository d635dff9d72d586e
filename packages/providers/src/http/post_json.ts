import type { Agent, ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { one_line } from '@lich/core';
import { ProviderError } from '../provider_error.js';
import { connection_error, cut_error, to_provider_error } from '../to_provider_error.js';
import { default_extract_error, type ErrorExtractor, html_summary } from './error_body.js';
import {
  type HeaderLookup,
  parse_request_id,
  parse_retry_after,
  parse_should_retry,
} from './response_headers.js';

/** Options of `post_json`. */
export interface PostJsonOptions {
  /** Named in every error, e.g. `anthropic`. */
  provider: string;
  model: string;
  /** Request headers (auth, version); `content-type: application/json` is added. */
  headers?: Record<string, string>;
  /** The caller's signal: aborting rejects at once with a `ProviderError` of kind `aborted`. */
  signal?: AbortSignal;
  /** Give up when nothing arrives for this long, headers included (default 60 000; 0 = never). */
  idle_timeout_ms?: number;
  /** Reads the provider's error body (default: `default_extract_error`). */
  extract_error?: ErrorExtractor;
}

/** A successful (2xx) answer whose body is still to be read, once, one way or another. */
export interface ProviderResponse {
  status: number;
  /** The answer's headers, any case. */
  headers: HeaderLookup;
  content_type: string;
  request_id: string | undefined;
  /**
   * The body's chunks. Each restarts the idle timer; every failure is a `ProviderError`
   * (`aborted`, `timeout`, `stream` for a cut connection). Leaving the loop early (the stream's
   * final event came, or the reader threw) reads the rest off for up to `RELEASE_WAIT_MS`, so the
   * connection serves the next request, and closes it when the rest takes longer.
   */
  body: AsyncIterable<Uint8Array>;
  /** The whole body as text (a non-streaming answer). */
  text(): Promise<string>;
  /** The whole body parsed as JSON; not JSON → `ProviderError` kind `parse` with an excerpt. */
  json(): Promise<unknown>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** The longest delay a Node timer takes; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_ERROR_BODY_CHARS = 64 * 1024;
/**
 * How long a kept-alive connection may sit idle before it is closed (undici's default as well);
 * Node's agent makes it a second shorter than a server's `keep-alive: timeout=N` that asks for less.
 */
export const FREE_SOCKET_TIMEOUT_MS = 4_000;
/** How long the rest of a body left early may take to end before its connection is closed. */
const RELEASE_WAIT_MS = 100;
/** The redirects `fetch` follows with the same method and body; credentials stay on their origin. */
const MAX_REDIRECTS = 20;
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

interface Client {
  request: typeof import('node:http').request;
  agent: Agent;
}
const clients = new Map<string, Promise<Client>>();

/**
 * `node:http` or `node:https` with one keep-alive agent each, loaded on the first request of its
 * protocol (a process that never posts pays nothing). Node's agent unrefs a free socket, so it
 * never holds the process open, and closes it after `FREE_SOCKET_TIMEOUT_MS` idle.
 */
function client_for(protocol: string): Promise<Client> | undefined {
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
function lookup(headers: IncomingHttpHeaders): HeaderLookup {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** The body decoded when the server compressed it although nothing asked for that. */
async function decoded(response: IncomingMessage): Promise<Readable> {
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
function read_off(response: IncomingMessage): Promise<void> {
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

/**
 * POSTs `json` (JSON text) through `node:http` / `node:https` (connections kept alive for the next
 * request to the same host, never holding the process open) and returns the answer once its
 * headers arrived, for the provider to read as a stream or as JSON. Sends no `accept-encoding`
 * (a compressed body is decoded anyway) and follows a 307 or 308 as `fetch` does.
 *
 * Contract:
 * - never rejects with anything but a `ProviderError` naming `provider` and `model`;
 * - a non-2xx status rejects with kind `http`, the status, the provider's message and code (via
 *   `extract_error`), the request id, `retry_after_ms` (`retry-after-ms` / `retry-after`) and
 *   `x-should-retry` as `retryable` when sent;
 * - a 2xx HTML page (a proxy or captive portal) rejects with kind `parse`;
 * - no connection → `network`; nothing received for `idle_timeout_ms` (connecting, before the
 *   headers or between chunks) → `timeout`; the caller's abort → `aborted`, at once, closing the
 *   connection; a body cut off → `stream`.
 */
export async function post_json(
  url: string,
  json: string,
  options: PostJsonOptions,
): Promise<ProviderResponse> {
  const { provider, model } = options;
  const context = { provider, model };
  if (options.signal?.aborted)
    throw to_provider_error(undefined, { ...context, signal: options.signal });
  // The request's own controller: the idle timer fires it, and so does the caller's signal.
  const own = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, own.signal]) : own.signal;
  const limit = options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS;
  const timer =
    limit > 0 && limit <= MAX_TIMER_MS
      ? setTimeout(() => {
          const cause = new Error(`no data for ${limit} ms`);
          own.abort(new ProviderError({ kind: 'timeout', ...context, cause }));
        }, limit)
      : undefined;
  timer?.unref();
  let current: ClientRequest | undefined;
  const on_abort = () => current?.destroy();
  signal.addEventListener('abort', on_abort, { once: true });
  /** The exchange is over: no timer, and a later abort has nothing to close. */
  const finish = () => {
    clearTimeout(timer);
    current = undefined;
    signal.removeEventListener('abort', on_abort);
  };
  /** Whatever broke, in `ProviderError` terms: an abort or a timeout wins over what it caused. */
  const failure = (error: unknown, connected: boolean): ProviderError => {
    if (options.signal?.aborted) return to_provider_error(error, { ...context, signal });
    if (own.signal.aborted) return own.signal.reason as ProviderError;
    if (ProviderError.is_instance(error)) return error;
    return connected ? cut_error(error, context) : connection_error(error, context);
  };

  let response: IncomingMessage;
  try {
    let target = new URL(url);
    let headers: Record<string, string> = {
      accept: '*/*',
      'user-agent': 'node',
      'content-type': 'application/json',
      ...options.headers,
    };
    const payload = Buffer.from(json);
    headers['content-length'] = String(payload.length);
    for (let redirects = 0; ; redirects++) {
      const client = client_for(target.protocol);
      if (client === undefined) {
        throw new Error(`unsupported protocol '${target.protocol}' (use http: or https:)`);
      }
      const { request, agent } = await client;
      if (signal.aborted) throw signal.reason;
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        current = request(target, { method: 'POST', agent, headers });
        // stays attached for the request's life: an 'error' nobody hears would crash the process
        current.on('error', reject).on('response', resolve).end(payload);
      });
      const location = response.headers.location;
      if ((response.statusCode !== 307 && response.statusCode !== 308) || !location) break;
      response.resume();
      if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      const next = new URL(location, target);
      if (next.origin !== target.origin) {
        headers = Object.fromEntries(
          Object.entries(headers).filter(([name]) => !ORIGIN_BOUND_HEADERS.has(name.toLowerCase())),
        );
      }
      target = next;
    }
  } catch (error) {
    finish();
    throw failure(error, false);
  }
  timer?.refresh();
  const raw = response;
  const headers = lookup(raw.headers);
  const status = raw.statusCode ?? 0;
  const content_type = headers.get('content-type') ?? '';
  const request_id = parse_request_id(headers);

  let used = false;
  async function* read(): AsyncGenerator<Uint8Array, void, undefined> {
    if (used) throw new Error('post_json: the response body was already read');
    used = true;
    let ended = false;
    let source: Readable = raw;
    try {
      source = await decoded(raw);
      // leaving the loop must not destroy the answer by itself: `finally` decides
      for await (const chunk of source.iterator({ destroyOnReturn: false })) {
        if (signal.aborted) throw signal.reason;
        timer?.refresh();
        yield chunk as Uint8Array;
      }
      ended = true;
    } catch (error) {
      ended = true;
      raw.destroy();
      throw failure(error, true);
    } finally {
      finish();
      if (!ended) {
        if (source === raw && !signal.aborted) await read_off(raw);
        else raw.destroy();
      }
    }
  }
  const read_all = async (max = Number.POSITIVE_INFINITY): Promise<string> => {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of read()) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length > max) break;
    }
    return text + decoder.decode();
  };
  /** The start of a body that explains a failure; `''` when it broke (the status says enough). */
  const failure_text = () =>
    read_all(MAX_ERROR_BODY_CHARS).catch((error: unknown) => {
      if (ProviderError.is_instance(error) && error.kind === 'aborted') throw error;
      return '';
    });
  const unreadable = (cause: Error) =>
    new ProviderError({ kind: 'parse', ...context, status, request_id, cause });

  if (status < 200 || status > 299) {
    const text = await failure_text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    let info: ReturnType<ErrorExtractor>;
    try {
      info = (options.extract_error ?? default_extract_error)(parsed, text, headers);
    } catch {
      info = default_extract_error(parsed, text);
    }
    throw new ProviderError({
      kind: 'http',
      ...context,
      status,
      provider_message: info?.message ?? (raw.statusMessage || undefined),
      code: info?.code,
      request_id,
      retry_after_ms: parse_retry_after(headers),
      retryable: parse_should_retry(headers),
    });
  }
  if (/text\/html/i.test(content_type)) {
    const page = html_summary(await failure_text());
    throw unreadable(new Error(`expected JSON or an event stream, got an HTML page: ${page}`));
  }
  return {
    status,
    headers,
    content_type,
    request_id,
    get body() {
      return read();
    },
    text: () => read_all(),
    async json() {
      const text = await read_all();
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw unreadable(
          new Error(`the answer is not JSON: '${one_line(text)}'`, { cause: error }),
        );
      }
    },
  };
}

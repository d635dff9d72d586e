import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { one_line } from '@lich/core';
import { ProviderError } from '../provider_error.js';
import { connection_error, cut_error, to_provider_error } from '../to_provider_error.js';
import { default_extract_error, type ErrorExtractor, html_summary } from './error_body.js';
import { client_for, decoded, lookup, read_off } from './node_client.js';
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

/** A successful (2xx) answer whose body is still to be read, once. */
export interface ProviderResponse {
  status: number;
  /** The answer's headers, any case. */
  headers: HeaderLookup;
  content_type: string;
  request_id: string | undefined;
  /**
   * Reads the body, once: `on_chunk` gets each chunk as it arrives (each restarts the idle timer)
   * and returns `true` once it needs no more (the stream's final event came); the rest is then
   * read off for up to 100 ms (`RELEASE_WAIT_MS`), so the connection serves the next request, and closed
   * when it takes longer. Resolves at the end of the body or after that `true`; rejects with what
   * `on_chunk` threw, unchanged (the connection closed), or with a `ProviderError` (`aborted`,
   * `timeout`, `stream` for a cut connection). Never calls `on_chunk` after an abort.
   */
  each_chunk(on_chunk: (chunk: Uint8Array) => boolean): Promise<void>;
  /** The whole body as text (a non-streaming answer). */
  text(): Promise<string>;
  /** The whole body parsed as JSON; not JSON → `ProviderError` kind `parse` with an excerpt. */
  json(): Promise<unknown>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** The longest delay a Node timer takes; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_ERROR_BODY_CHARS = 64 * 1024;
/** The redirects `fetch` follows with the same method and body; credentials stay on their origin. */
const MAX_REDIRECTS = 20;
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

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
  const { provider, model, signal } = options;
  const context = { provider, model };
  const aborted = () => to_provider_error(undefined, { ...context, signal });
  if (signal?.aborted) throw aborted();
  let current: ClientRequest | undefined;
  /** Why the exchange was stopped (the idle timer or the caller), once it was. */
  let stopped: ProviderError | undefined;
  const stop = (reason: ProviderError) => {
    stopped ??= reason;
    current?.destroy();
  };
  const limit = options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS;
  const timer =
    limit > 0 && limit <= MAX_TIMER_MS
      ? setTimeout(() => {
          const cause = new Error(`no data for ${limit} ms`);
          stop(new ProviderError({ kind: 'timeout', ...context, cause }));
        }, limit)
      : undefined;
  timer?.unref();
  // Nothing downstream takes a signal (the request is destroyed by hand): one listener will do.
  const on_abort = () => stop(aborted());
  signal?.addEventListener('abort', on_abort, { once: true });
  /** The exchange is over: no timer, and a later abort has nothing to close. */
  const finish = () => {
    clearTimeout(timer);
    current = undefined;
    signal?.removeEventListener('abort', on_abort);
  };
  /** Whatever broke, in `ProviderError` terms: an abort or a timeout wins over what it caused. */
  const failure = (error: unknown, connected: boolean): ProviderError => {
    if (stopped !== undefined) return stopped;
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
    headers['content-length'] = String(Buffer.byteLength(json));
    for (let redirects = 0; ; redirects++) {
      const client = client_for(target.protocol);
      if (client === undefined) {
        throw new Error(`unsupported protocol '${target.protocol}' (use http: or https:)`);
      }
      const { request, agent } = await client;
      if (stopped !== undefined) throw stopped;
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        current = request(target, { method: 'POST', agent, headers });
        // stays attached for the request's life: an 'error' nobody hears would crash the process
        current.on('error', reject).on('response', resolve).end(json);
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
  const each_chunk = async (on_chunk: (chunk: Uint8Array) => boolean): Promise<void> => {
    if (used) throw new Error('post_json: the response body was already read');
    used = true;
    let source: Readable;
    try {
      source = await decoded(raw);
    } catch (error) {
      finish();
      raw.destroy();
      throw failure(error, true);
    }
    // The chunks come from 'data' events, straight into `on_chunk`: no async step per chunk.
    return new Promise<void>((resolve, reject) => {
      let over = false;
      const end = (outcome: { error: unknown } | undefined) => {
        if (over) return;
        over = true;
        finish();
        if (outcome === undefined) return resolve();
        raw.destroy();
        reject(outcome.error);
      };
      // a body read to its end still closes: only a close before the end is an error to make
      const broke = (error: unknown) => {
        if (!over) end({ error: failure(error, true) });
      };
      source
        .on('data', (chunk: Uint8Array) => {
          if (over) return;
          if (stopped !== undefined) return broke(stopped);
          timer?.refresh();
          let enough: boolean;
          try {
            enough = on_chunk(chunk);
          } catch (error) {
            return end({ error });
          }
          if (!enough) return;
          over = true;
          finish();
          if (source === raw) read_off(raw).then(resolve);
          else {
            raw.destroy();
            resolve();
          }
        })
        .on('end', () => end(undefined))
        .on('error', broke)
        // destroyed without an error: the connection closed before the end
        .on('close', () => {
          if (!over) broke(new Error('Premature close'));
        });
      // it broke before the first read: nothing more will be emitted
      if (source.destroyed) broke(source.errored ?? new Error('Premature close'));
    });
  };
  const read_all = async (max = Number.POSITIVE_INFINITY): Promise<string> => {
    const decoder = new TextDecoder();
    let text = '';
    await each_chunk((chunk) => {
      text += decoder.decode(chunk, { stream: true });
      return text.length > max;
    });
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
      retry_after_ms: parse_retry_after(headers) ?? info?.retry_after_ms,
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
    each_chunk,
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

import { one_line } from '@lich/core';
import type { AbortLike } from './abort_hub.js';
import { default_extract_error, type ErrorExtractor, html_summary } from './error_body.js';
import { fetch_transport } from './fetch_transport.js';
import type { HttpExchange } from './http_exchange.js';
import { create_idle_timeout, type IdleTimeout } from './idle_timeout.js';
import { JsonBytes } from './json_bytes.js';
import { node_transport } from './node_transport.js';
import { ProviderError } from './provider_error.js';
import { parse_request_id, parse_retry_after, parse_should_retry } from './response_headers.js';
import { to_provider_error } from './to_provider_error.js';

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
  /**
   * Send through this `fetch` instead (a proxy-aware one, a test double). Without it the request
   * goes through `node:http` / `node:https` with a keep-alive agent, which lets a short-lived
   * process exit at once: Node 20's `fetch` keeps it waiting 40–60 ms for undici's WebAssembly
   * parser to finish compiling in the background.
   */
  fetch?: typeof globalThis.fetch;
}

/** A successful (2xx) answer whose body is guarded by the idle timer and error mapping. */
export interface ProviderResponse {
  status: number;
  headers: Headers;
  content_type: string;
  request_id: string | undefined;
  /**
   * The body's chunks, for `read_sse` / `read_ndjson`. Each chunk restarts the idle timer; every
   * failure is a `ProviderError` (`aborted`, `timeout`, `stream` for a cut connection). Read once.
   */
  body: AsyncIterable<Uint8Array>;
  /**
   * The body read push-style instead of through `body` (read once, one or the other): `on_chunk`
   * gets each chunk as it arrives, with no async iteration per chunk where the transport allows,
   * and returns `true` once the caller needs no more (call `release()` first to keep the
   * connection). Resolves at the end of the body or after that `true`; rejects with what
   * `on_chunk` threw, unchanged, or with the `ProviderError` that `body` would give (idle timer,
   * abort, a cut connection). Never calls `on_chunk` once the request was aborted.
   */
  each_chunk(on_chunk: (chunk: Uint8Array) => boolean): Promise<void>;
  /** The whole body as text (a non-streaming answer). */
  text(): Promise<string>;
  /** The whole body parsed as JSON; not JSON → `ProviderError` kind `parse` with an excerpt. */
  json(): Promise<unknown>;
  /**
   * Stops the request and its timer (e.g. after the final event); the connection is closed unless
   * the body had been read to its end. Never throws.
   */
  cancel(): Promise<void>;
  /**
   * Says the stream's final event came, before the body is left: the rest of it is read off so
   * the connection serves the next request (closed instead when the rest does not come promptly).
   * Leaving without it closes the connection. Resolves (never rejects) once the connection is
   * free or closed; await it after leaving the body.
   */
  release(): Promise<void>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const MAX_ERROR_BODY_CHARS = 64 * 1024;

interface Guard {
  provider: string;
  model: string;
  signal: AbortSignal | undefined;
  idle: IdleTimeout;
}

function failure(error: unknown, guard: Guard): ProviderError {
  const { provider, model } = guard;
  // After an abort, whatever the transport called the break (a reset, a cut) was the abort.
  if (guard.idle.timed_out && !guard.signal?.aborted) return guard.idle.error();
  if (guard.signal?.aborted || guard.idle.stopped) {
    const signal = guard.signal?.aborted ? guard.signal : guard.idle.signal;
    return to_provider_error(undefined, { provider, model, signal });
  }
  return to_provider_error(error, { provider, model });
}

/**
 * The transport's body under the idle timer and the error mapping: each chunk restarts the timer,
 * every failure is a `ProviderError`, and no chunk is handed out once the request was aborted.
 */
async function* guarded_body(
  body: AsyncIterator<Uint8Array, void, undefined>,
  guard: Guard,
  request_signal: AbortLike,
): AsyncGenerator<Uint8Array, void, undefined> {
  let finished = false;
  try {
    for (;;) {
      let result: IteratorResult<Uint8Array, void>;
      try {
        result = await body.next();
      } catch (error) {
        finished = true; // a source that threw has let go of its connection already
        throw failure(error, guard);
      }
      if (request_signal.aborted) throw failure(request_signal.reason, guard);
      if (result.done) {
        finished = true;
        return;
      }
      guard.idle.touch();
      yield result.value;
    }
  } finally {
    guard.idle.clear();
    if (!finished) await body.return?.()?.catch(() => undefined);
  }
}

async function read_all(chunks: AsyncIterable<Uint8Array>, limit = Number.POSITIVE_INFINITY) {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of chunks) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > limit) break;
  }
  return text + decoder.decode();
}

/**
 * The start of a body that explains a failure (an error status, an HTML page). Only an abort
 * rejects; when the body itself breaks, what the status says is enough, so it gives `''`.
 */
async function read_failure_body(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  try {
    return await read_all(chunks, MAX_ERROR_BODY_CHARS);
  } catch (error) {
    if (ProviderError.is_instance(error) && error.kind === 'aborted') throw error;
    return '';
  }
}

/**
 * POSTs `body` as JSON (or the bytes of a `JsonBytes`, sent as they are) and returns the response
 * once its headers arrived, for the provider to read as a stream or as JSON. Sent with
 * `node:http` / `node:https` (connections kept alive for the next request to the same host, never
 * holding the process open), or with `options.fetch`.
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
  body: unknown,
  options: PostJsonOptions,
): Promise<ProviderResponse> {
  const { provider, model } = options;
  if (options.signal?.aborted)
    throw to_provider_error(options.signal.reason, { provider, model, signal: options.signal });
  const idle = create_idle_timeout({
    idle_timeout_ms: options.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS,
    provider,
    model,
    signal: options.signal,
  });
  // `cancel()` aborts through the idle timer's signal (`stop`), since a body being read is locked.
  const guard: Guard = { provider, model, signal: options.signal, idle };
  const request_signal = idle.signal;
  const transport = options.fetch === undefined ? node_transport : fetch_transport(options.fetch);
  let response: HttpExchange;
  try {
    response = await transport({
      url,
      headers: { 'content-type': 'application/json', ...options.headers },
      body: body instanceof JsonBytes ? body : JsonBytes.of(body),
      signal: request_signal,
      provider,
      model,
    });
  } catch (error) {
    idle.clear();
    throw failure(error, guard);
  }
  idle.touch();
  const content_type = response.headers.get('content-type') ?? '';
  const request_id = parse_request_id(response.headers);
  // made on first use: a stream read through `each_chunk` never needs it
  let guarded: AsyncGenerator<Uint8Array, void, undefined> | undefined;
  const chunks = () => {
    guarded ??= guarded_body(response.body, guard, request_signal);
    return guarded;
  };

  if (response.status < 200 || response.status > 299) {
    const text = await read_failure_body(chunks());
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    let info: ReturnType<ErrorExtractor>;
    try {
      info = (options.extract_error ?? default_extract_error)(parsed, text);
    } catch {
      info = default_extract_error(parsed, text);
    }
    throw new ProviderError({
      kind: 'http',
      provider,
      model,
      status: response.status,
      provider_message: info?.message ?? (response.status_text || undefined),
      code: info?.code,
      request_id,
      retry_after_ms: parse_retry_after(response.headers),
      retryable: parse_should_retry(response.headers),
    });
  }

  // a 2xx answer that cannot be understood
  const unreadable = (cause: Error) =>
    new ProviderError({
      kind: 'parse',
      provider,
      model,
      status: response.status,
      request_id,
      cause,
    });

  if (/text\/html/i.test(content_type)) {
    const text = await read_failure_body(chunks());
    throw unreadable(
      new Error(`expected JSON or an event stream, got an HTML page: ${html_summary(text)}`),
    );
  }

  /** Reads `chunks` for a transport without `each_chunk`. */
  const iterate = async (on_chunk: (chunk: Uint8Array) => boolean): Promise<void> => {
    for await (const chunk of chunks()) if (on_chunk(chunk)) break;
  };
  const each_chunk = async (on_chunk: (chunk: Uint8Array) => boolean): Promise<void> => {
    const push = response.each_chunk;
    if (push === undefined) return iterate(on_chunk);
    // what the caller threw is rethrown as it is; what the transport threw is mapped
    let thrown: { error: unknown } | undefined;
    try {
      await push((chunk) => {
        if (request_signal.aborted) throw request_signal.reason;
        guard.idle.touch();
        try {
          return on_chunk(chunk);
        } catch (error) {
          thrown = { error };
          throw error;
        }
      });
    } catch (error) {
      if (thrown !== undefined && thrown.error === error) throw error;
      throw failure(error, guard);
    } finally {
      guard.idle.clear();
    }
  };

  let used = false;
  const take = () => {
    if (used) throw new Error('post_json: the response body was already read');
    used = true;
    return chunks();
  };
  return {
    status: response.status,
    get headers() {
      return response.all_headers();
    },
    content_type,
    request_id,
    get body() {
      return take();
    },
    each_chunk(on_chunk) {
      if (used) throw new Error('post_json: the response body was already read');
      used = true;
      return each_chunk(on_chunk);
    },
    text: () => read_all(take()),
    async json() {
      const text = await read_all(take());
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw unreadable(
          new Error(`the answer is not JSON: '${one_line(text)}'`, { cause: error }),
        );
      }
    },
    release() {
      return response.release?.() ?? Promise.resolve();
    },
    async cancel() {
      used = true;
      idle.stop();
      await guarded?.return(undefined).catch(() => undefined);
    },
  };
}

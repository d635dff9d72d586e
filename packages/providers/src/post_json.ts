import { default_extract_error, type ErrorExtractor, html_summary } from './error_body.js';
import { excerpt } from './excerpt.js';
import { create_idle_timeout, type IdleTimeout } from './idle_timeout.js';
import { ProviderError } from './provider_error.js';
import { parse_request_id, parse_retry_after, parse_should_retry } from './response_headers.js';
import { to_provider_error } from './to_provider_error.js';

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
  /** The fetch to use (default: the global one). */
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
  /** The whole body as text (a non-streaming answer). */
  text(): Promise<string>;
  /** The whole body parsed as JSON; not JSON → `ProviderError` kind `parse` with an excerpt. */
  json(): Promise<unknown>;
  /** Stops the request and its timer (e.g. after the final event). Never throws. */
  cancel(): Promise<void>;
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
  if (guard.signal?.aborted) {
    return to_provider_error(error, {
      provider: guard.provider,
      model: guard.model,
      signal: guard.signal,
    });
  }
  if (guard.idle.timed_out) return guard.idle.error();
  return to_provider_error(error, { provider: guard.provider, model: guard.model });
}

async function* guarded_body(
  body: ReadableStream<Uint8Array> | null,
  guard: Guard,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (body === null) {
    guard.idle.clear();
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>;
      try {
        result = await reader.read();
      } catch (error) {
        throw failure(error, guard);
      }
      if (result.done) {
        finished = true;
        return;
      }
      guard.idle.touch();
      yield result.value;
    }
  } finally {
    guard.idle.clear();
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
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
 * POSTs `body` as JSON and returns the response once its headers arrived, for the provider to
 * read as a stream or as JSON.
 *
 * Contract:
 * - never rejects with anything but a `ProviderError` naming `provider` and `model`;
 * - a non-2xx status rejects with kind `http`, the status, the provider's message and code (via
 *   `extract_error`), the request id, `retry_after_ms` (`retry-after-ms` / `retry-after`) and
 *   `x-should-retry` as `retryable` when sent;
 * - a 2xx HTML page (a proxy or captive portal) rejects with kind `parse`;
 * - no connection → `network`; nothing received for `idle_timeout_ms` (before the headers or
 *   between chunks) → `timeout`; the caller's abort → `aborted`, at once.
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
  const guard: Guard = { provider, model, signal: options.signal, idle };
  const fetch_fn = options.fetch ?? globalThis.fetch;
  // `cancel()` aborts through its own controller, since a body being read is locked.
  const local = new AbortController();
  let response: Response;
  try {
    response = await fetch_fn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.any([idle.signal, local.signal]),
    });
  } catch (error) {
    idle.clear();
    throw failure(error, guard);
  }
  idle.touch();
  const headers = response.headers;
  const content_type = headers.get('content-type') ?? '';
  const request_id = parse_request_id(headers);
  const chunks = guarded_body(response.body, guard);

  if (!response.ok) {
    const text = await read_failure_body(chunks);
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
      provider_message: info?.message ?? (response.statusText || undefined),
      code: info?.code,
      request_id,
      retry_after_ms: parse_retry_after(headers),
      retryable: parse_should_retry(headers),
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
    const text = await read_failure_body(chunks);
    throw unreadable(
      new Error(`expected JSON or an event stream, got an HTML page: ${html_summary(text)}`),
    );
  }

  let used = false;
  const take = () => {
    if (used) throw new Error('post_json: the response body was already read');
    used = true;
    return chunks;
  };
  return {
    status: response.status,
    headers,
    content_type,
    request_id,
    get body() {
      return take();
    },
    text: () => read_all(take()),
    async json() {
      const text = await read_all(take());
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw unreadable(new Error(`the answer is not JSON: '${excerpt(text)}'`, { cause: error }));
      }
    },
    async cancel() {
      idle.clear();
      used = true;
      local.abort();
      await chunks.return(undefined).catch(() => undefined);
    },
  };
}

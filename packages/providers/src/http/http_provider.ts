import type { ChatDelta, ChatResult, Message, ToolDefinition } from '@lich/core';
import type { ChunkDecoder } from '../byte_source.js';
import type { CallContext } from '../call_context.js';
import type { LLMProvider, ProviderConfig } from '../provider.js';
import { failure_facts, ProviderError } from '../provider_error.js';
import type { StreamState } from '../stream_state.js';
import { to_provider_error } from '../to_provider_error.js';
import type { ErrorExtractor } from './error_body.js';
import { post_json } from './post_json.js';

/** One request as it is about to be sent: what `ProviderWire.sign` may add headers to. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  /** The JSON body, exactly as it will be sent. */
  body: string;
}

/**
 * What a provider package supplies: its wire mapping, nothing of the HTTP call.
 * `Settings` is the provider's checked `config.options`, read once in its factory.
 */
export interface ProviderWire<
  Settings extends { url: string; headers: Record<string, string> },
  Chunk,
> {
  kind: string;
  /** The checked `config.options`, with the request URL and headers. */
  settings: Settings;
  /**
   * The request body of one call, built from the whole conversation each time (nothing is kept
   * between calls): the one place a request is made.
   */
  build_request: (
    config: ProviderConfig,
    settings: Settings,
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    max_tokens: number | undefined,
    cache_key?: string,
  ) => object;
  /**
   * Whether a call streams, for an API that says so by its URL rather than by a `stream` field of
   * the body (the default reads `body.stream === true`).
   */
  streams?: (settings: Settings) => boolean;
  /** A fresh decoder of the streamed body, for each call (`SseParser`, `NdjsonDecoder`…). */
  decoder: () => ChunkDecoder<Chunk>;
  /** A fresh state that puts one streamed answer together. */
  stream_state: (context: CallContext, on_delta?: (delta: ChatDelta) => void) => StreamState<Chunk>;
  /** Maps a whole JSON answer (a non-streaming call, or a server that answered with JSON). */
  from_json: (body: unknown, context: CallContext) => ChatResult;
  /** Reads the provider's error body (default: `default_extract_error`). */
  extract_error?: ErrorExtractor;
  /**
   * Headers that depend on the request itself (a SigV4 signature over the body), added last. A
   * failure is a `config` or `network` `ProviderError` of the provider's choosing.
   */
  sign?: (request: WireRequest, signal: AbortSignal | undefined) => Promise<Record<string, string>>;
  /**
   * The variables the API key is read from by default, named in an authentication error when
   * the config names none (`config.api_key_env`).
   */
  key_envs?: readonly string[];
  /** Whether a failure is the API refusing the credentials (default: HTTP 401 and 403). */
  is_auth_error?: (error: ProviderError) => boolean;
  /** The request URL when it is not `settings.url` (e.g. it depends on `stream`). */
  url?: (settings: Settings, stream: boolean) => string;
}

/**
 * Builds an `LLMProvider` from a provider package's wire mapping: each `chat` builds the request
 * body from the messages it is given, posts it (`post_json`), then maps a JSON answer with
 * `from_json` or reads the stream through a fresh decoder and `stream_state`, stopping at its
 * final event.
 *
 * Contract:
 * - does no I/O until `chat`; exactly one HTTP request per `chat`, never a retry (the router
 *   retries);
 * - `chat` rejects only with a `ProviderError` naming `wire.kind` and the model: `post_json` maps
 *   statuses, network failures, idle timeouts and aborts; anything the decoder, the state or the
 *   mapping throw goes through `to_provider_error`; `delivered` is set when a delta had reached
 *   `on_delta`;
 * - rejects promptly with kind `aborted` when `options.signal` fires, and hands no delta to
 *   `on_delta` after it has.
 */
export function create_http_provider<
  Settings extends { url: string; headers: Record<string, string> },
  Chunk,
>(config: ProviderConfig, wire: ProviderWire<Settings, Chunk>): LLMProvider {
  const context: CallContext = { provider: wire.kind, model: config.model };
  const key_env = config.api_key_env ?? wire.key_envs?.join(' or ');
  return {
    kind: wire.kind,
    model: config.model,
    async chat(messages, tools, options = {}) {
      const { signal } = options;
      let state: StreamState<Chunk> | undefined;
      try {
        const body = wire.build_request(
          config,
          wire.settings,
          messages,
          tools,
          options.max_tokens,
          options.cache_key,
        );
        const streams =
          wire.streams?.(wire.settings) ?? (body as { stream?: unknown }).stream === true;
        const url = wire.url?.(wire.settings, streams) ?? wire.settings.url;
        const json = JSON.stringify(body);
        let headers = wire.settings.headers;
        if (wire.sign !== undefined) {
          headers = { ...headers, ...(await wire.sign({ url, headers, body: json }, signal)) };
        }
        const response = await post_json(url, json, {
          ...context,
          headers,
          signal,
          idle_timeout_ms: config.idle_timeout_ms,
          extract_error: wire.extract_error,
        });
        if (!streams || /application\/json/i.test(response.content_type)) {
          return wire.from_json(await response.json(), context);
        }
        const decoder = wire.decoder();
        const stream = wire.stream_state(context, options.on_delta);
        state = stream;
        /** Feeds `items` to the state; true once its final event came. */
        const feed = (items: readonly Chunk[]): boolean => {
          for (const item of items) {
            stream.push(item);
            signal?.throwIfAborted();
            if (stream.done) return true;
          }
          return false;
        };
        let done = false;
        // stopping at the final event reads the rest off: the connection is kept
        await response.each_chunk((bytes) => {
          done = feed(decoder.push(bytes));
          return done;
        });
        if (!done) feed(decoder.end());
        return stream.result();
      } catch (error) {
        const failure = to_provider_error(error, { ...context, signal });
        throw with_key_hint(failure, key_env, wire.is_auth_error).with_delivered(
          state?.delivered ?? false,
        );
      }
    },
  };
}

/**
 * An authentication failure that says which variable to set: `… (set GEMINI_API_KEY)`. Any other
 * failure, or one with no variable to name, is returned as it is.
 */
function with_key_hint(
  error: ProviderError,
  key_env: string | undefined,
  is_auth_error: ((error: ProviderError) => boolean) | undefined,
): ProviderError {
  if (key_env === undefined || error.kind !== 'http') return error;
  const auth = is_auth_error?.(error) ?? (error.status === 401 || error.status === 403);
  if (!auth) return error;
  const facts = failure_facts(error);
  const said = error.provider_message ?? 'the API refused the credentials';
  return new ProviderError({
    ...facts,
    // the provider's own words stay as they are; the message adds what to do
    message: ProviderError.describe({ ...facts, provider_message: `${said} (set ${key_env})` }),
    retryable: error.retryable,
    retry_after_ms: error.retry_after_ms,
    cause: error.cause,
  });
}

import type { ChatDelta, ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import type { CallContext } from './call_context.js';
import type { ErrorExtractor } from './error_body.js';
import { GrowingJsonBody } from './growing_json_body.js';
import type { JsonBytes } from './json_bytes.js';
import { type ProviderResponse, post_json } from './post_json.js';
import type { LLMProvider, ProviderConfig } from './provider.js';
import type { ChunkDecoder } from './pull_iterator.js';
import { NdjsonDecoder } from './read_ndjson.js';
import { SseParser } from './sse_parser.js';
import type { SseChunk, StreamState } from './stream_state.js';
import { to_provider_error } from './to_provider_error.js';

/** How the answer is framed when it streams, and the state that reads one chunk at a time. */
export type ChatFraming =
  | {
      framing: 'sse';
      stream_state: (on_delta?: (delta: ChatDelta) => void) => StreamState<SseChunk>;
    }
  | {
      framing: 'ndjson';
      stream_state: (on_delta?: (delta: ChatDelta) => void) => StreamState<unknown>;
    };

/** One model call over HTTP, as a provider package describes it. */
export type ChatCall = ChatFraming & {
  url: string;
  /** The request body (the provider's wire format). */
  body: unknown;
  /**
   * Makes the bytes to send instead of `body`, reusing what earlier calls serialised (see
   * `ProviderWire.growing_messages`); called once, where its failure becomes a `ProviderError`.
   */
  encode?: () => JsonBytes;
  context: CallContext;
  headers?: Record<string, string>;
  idle_timeout_ms?: number;
  /** Whether `body` asked for a stream. */
  stream: boolean;
  /** Maps a whole JSON answer (a non-streaming call, or a server that answered with JSON). */
  from_json: (body: unknown) => ChatResult;
  /** Reads the provider's error body (default: `default_extract_error`). */
  extract_error?: ErrorExtractor;
};

/**
 * Makes one model call: posts the body, then maps a JSON answer with `from_json` or reads the
 * stream (`sse` or `ndjson`) through a fresh `stream_state`, stopping at its final event.
 *
 * Contract:
 * - exactly one HTTP request; never retries (the router does);
 * - rejects only with a `ProviderError`: `post_json` maps statuses, network failures, idle
 *   timeouts and aborts; anything the readers or the mapping throw goes through
 *   `to_provider_error`; `delivered` is set when a delta had reached `options.on_delta`;
 * - rejects promptly with kind `aborted` when `options.signal` fires.
 */
export async function send_chat(call: ChatCall, options: ChatOptions = {}): Promise<ChatResult> {
  const { context } = call;
  const { signal } = options;
  let state: { readonly delivered: boolean } | undefined;
  try {
    const body = call.encode === undefined ? call.body : call.encode();
    const response = await post_json(call.url, body, {
      ...context,
      headers: call.headers,
      signal,
      idle_timeout_ms: call.idle_timeout_ms,
      extract_error: call.extract_error,
    });
    if (!call.stream || /application\/json/i.test(response.content_type)) {
      return call.from_json(await response.json());
    }
    if (call.framing === 'sse') {
      const sse = call.stream_state(options.on_delta);
      state = sse;
      return await read_stream(response, new SseParser(), sse);
    }
    const ndjson = call.stream_state(options.on_delta);
    state = ndjson;
    return await read_stream(response, new NdjsonDecoder(), ndjson);
  } catch (error) {
    const failure = to_provider_error(error, { ...context, signal });
    throw failure.with_delivered(state?.delivered ?? false);
  }
}

/**
 * Reads a streamed answer in one push-style loop: each chunk of the body is decoded (`decoder`)
 * and fed to `state` as it arrives, with no async iteration between the socket and the state.
 * Once `state` is done, the rest of the body is read off so the connection is kept.
 */
async function read_stream<Chunk>(
  response: ProviderResponse,
  decoder: ChunkDecoder<Chunk>,
  state: StreamState<Chunk>,
): Promise<ChatResult> {
  let released: Promise<void> | undefined;
  /** Feeds `items` to the state; true once it is done. */
  const feed = (items: readonly Chunk[]): boolean => {
    for (const item of items) {
      state.push(item);
      if (state.done) return true;
    }
    return false;
  };
  await response.each_chunk((bytes) => {
    if (!feed(decoder.push(bytes))) return false;
    // the rest (a `[DONE]`, the end of the body) is read off: the connection is kept
    released = response.release();
    return true;
  });
  if (released === undefined) feed(decoder.end());
  const result = state.result();
  await released;
  return result;
}

/** What a provider package supplies: its wire mapping, nothing of the HTTP call. */
export type ProviderWire<Settings extends { url: string; headers: Record<string, string> }> = (
  | {
      framing: 'sse';
      stream_state: (
        context: CallContext,
        on_delta?: (delta: ChatDelta) => void,
      ) => StreamState<SseChunk>;
    }
  | {
      framing: 'ndjson';
      stream_state: (
        context: CallContext,
        on_delta?: (delta: ChatDelta) => void,
      ) => StreamState<unknown>;
    }
) & {
  kind: string;
  /** The checked `config.options`, with the request URL and headers; read once, in the factory. */
  settings: Settings;
  /** The request body of one call; `stream` says whether it asks for a stream. */
  build_request: (
    config: ProviderConfig,
    settings: Settings,
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    max_tokens: number | undefined,
  ) => { stream: boolean };
  /** Maps a whole JSON answer. */
  from_json: (body: unknown, context: CallContext) => ChatResult;
  extract_error?: ErrorExtractor;
  /**
   * Where the messages go in the body (`field`) when each maps to one wire item by itself
   * (`to_wire`; `undefined` leaves it out) and nothing else in the body depends on them: each call
   * then maps and serialises only the messages that are new, reusing the bytes of the rest (see
   * `GrowingJsonBody`). `build_request` is then given no messages; `field` is filled from them.
   */
  growing_messages?: { field: string; to_wire: (message: Message) => unknown };
};

/**
 * Builds an `LLMProvider` from a provider package's wire mapping: each `chat` builds the request
 * body and makes the call through `send_chat`.
 *
 * Contract: does no I/O; `chat` keeps the contract of `send_chat` (exactly one request, never a
 * retry, rejects only with a `ProviderError` naming `wire.kind` and the model, `delivered` set
 * once a delta reached `on_delta`, kind `aborted` promptly when the signal fires).
 */
export function create_http_provider<
  Settings extends { url: string; headers: Record<string, string> },
>(config: ProviderConfig, wire: ProviderWire<Settings>): LLMProvider {
  const context: CallContext = { provider: wire.kind, model: config.model };
  const framing: ChatFraming =
    wire.framing === 'sse'
      ? { framing: 'sse', stream_state: (on_delta) => wire.stream_state(context, on_delta) }
      : { framing: 'ndjson', stream_state: (on_delta) => wire.stream_state(context, on_delta) };
  const growing = wire.growing_messages;
  const encoder =
    growing === undefined ? undefined : new GrowingJsonBody(growing.field, growing.to_wire);
  return {
    kind: wire.kind,
    model: config.model,
    chat: (messages, tools, options = {}) => {
      const body = wire.build_request(
        config,
        wire.settings,
        encoder === undefined ? messages : [],
        tools,
        options.max_tokens,
      );
      return send_chat(
        {
          ...framing,
          url: wire.settings.url,
          body,
          encode: encoder === undefined ? undefined : () => encoder.encode(body, messages),
          context,
          headers: wire.settings.headers,
          idle_timeout_ms: config.idle_timeout_ms,
          stream: body.stream,
          from_json: (answer) => wire.from_json(answer, context),
          extract_error: wire.extract_error,
        },
        options,
      );
    },
  };
}

import type { ChatDelta, ChatResult } from '@lich/core';
import { one_line } from '@lich/core';
import type { CallContext } from './call_context.js';
import { ProviderError } from './provider_error.js';
import type { SseEvent } from './sse_parser.js';

/** One server-sent event as a stream state reads it. */
export type SseChunk = Pick<SseEvent, 'data'> & Partial<Pick<SseEvent, 'event'>>;

/**
 * Puts one streamed answer together, a chunk at a time: an SSE event (`SseChunk`) or one parsed
 * NDJSON value. A provider package writes one for its wire format; `create_http_provider` drives it.
 *
 * Contract:
 * - `push` hands every text or reasoning piece to `on_delta` at once, in order, exactly once,
 *   and sets `delivered` when it has; it throws only a `ProviderError` (unless `on_delta` throws);
 * - `done` turns true at the API's final event; the caller stops reading then;
 * - `result` builds the `ChatResult`, and throws a `ProviderError` of kind `stream` when the
 *   final event never came.
 */
export interface StreamState<Chunk> {
  readonly delivered: boolean;
  readonly done: boolean;
  push(chunk: Chunk): void;
  result(): ChatResult;
}

/**
 * What every provider's `StreamState` shares: `delivered`, set as `emit` hands a delta to
 * `on_delta`; `done`, which the subclass sets at its API's final event; and errors that name the
 * call and carry `delivered` (`error`, `parse_object`). A provider package extends it with the
 * reading of its wire format (`push`, `result`).
 */
export abstract class BaseStreamState<Chunk> implements StreamState<Chunk> {
  delivered = false;
  done = false;

  constructor(
    protected readonly context: CallContext,
    protected readonly on_delta?: (delta: ChatDelta) => void,
  ) {}

  abstract push(chunk: Chunk): void;
  abstract result(): ChatResult;

  /** Hands `delta` to `on_delta` and marks the answer delivered. */
  protected emit(delta: ChatDelta): void {
    this.delivered = true;
    this.on_delta?.(delta);
  }

  /** A `ProviderError` of `kind` for this call, saying `text`, carrying `delivered`. */
  protected error(kind: 'parse' | 'stream', text: string, cause?: unknown): ProviderError {
    return new ProviderError({
      kind,
      ...this.context,
      cause: new Error(text, { cause }),
      delivered: this.delivered,
    });
  }

  /**
   * `text` parsed as a JSON object; else throws a `parse` error saying that `what` (`a stream
   * chunk`) is not JSON, or not an object, with an excerpt.
   */
  protected parse_object<T extends object>(text: string, what: string): T {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw this.error('parse', `${what} is not JSON: ${one_line(text, 120)}`, error);
    }
    if (typeof value !== 'object' || value === null) {
      throw this.error('parse', `${what} is not an object: ${one_line(text, 120)}`);
    }
    return value as T;
  }
}

import type { ChatResult } from '@lich/core';
import type { SseEvent } from './sse_parser.js';

/** One server-sent event as a stream state reads it. */
export type SseChunk = Pick<SseEvent, 'data'> & Partial<Pick<SseEvent, 'event'>>;

/**
 * Puts one streamed answer together, a chunk at a time: an SSE event (`SseChunk`) or one parsed
 * NDJSON value. A provider package writes one for its wire format; `send_chat` drives it.
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

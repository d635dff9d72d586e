import { type ByteSource, iterate_bytes } from './byte_source.js';
import { type SseEvent, SseParser, type SseParserOptions } from './sse_parser.js';

/** Options of `read_sse`. */
export interface ReadSseOptions extends SseParserOptions {
  /** Stops reading: the pending read rejects with the signal's reason and the source is cancelled. */
  signal?: AbortSignal;
}

/**
 * Reads server-sent events from a byte stream (a fetch body) as they arrive.
 *
 * Contract: yields each complete event in order, the last one even without a trailing blank line;
 * byte-chunk safe (lines and UTF-8 characters may be split anywhere); throws a
 * `StreamParseError` for a line that is not SSE (strict mode, the default) or an oversized event,
 * and rethrows the source's own error (a broken connection) unchanged. Breaking out of the loop,
 * an error or an abort cancels the source.
 */
export async function* read_sse(
  source: ByteSource,
  options: ReadSseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const parser = new SseParser(options);
  for await (const chunk of iterate_bytes(source, options.signal)) {
    const events = parser.push(chunk);
    for (let index = 0; index < events.length; index++) yield events[index] as SseEvent;
  }
  yield* parser.end();
}

import { type ByteSource, decode_bytes } from './byte_source.js';
import { type SseEvent, SseParser, type SseParserOptions } from './sse_parser.js';

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
export function read_sse(
  source: ByteSource,
  options: ReadSseOptions = {},
): AsyncGenerator<SseEvent, void, undefined> {
  return decode_bytes(source, new SseParser(options), options.signal);
}

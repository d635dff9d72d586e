import { type ByteSource, type ChunkDecoder, decode_bytes } from './byte_source.js';
import { StreamParseError } from './stream_parse_error.js';
import { Utf8Chunks } from './utf8_chunks.js';

export interface ReadNdjsonOptions {
  /** Stops reading: the pending read rejects with the signal's reason and the source is cancelled. */
  signal?: AbortSignal;
  /** A line longer than this many characters is an error. Default 16 MiB. */
  max_line_chars?: number;
}

const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * A push decoder of newline-delimited JSON bytes, as `read_ndjson` describes: `push` and `end`
 * return the values the input completed, in order, and throw a `StreamParseError` for a line that
 * is not JSON or longer than `max` characters.
 */
export class NdjsonDecoder implements ChunkDecoder<unknown> {
  readonly #decoder = new Utf8Chunks();
  readonly #max: number;
  #pending = '';
  #line_number = 0;

  constructor(max = DEFAULT_MAX_LINE_CHARS) {
    this.#max = max;
  }

  push(bytes: Uint8Array): unknown[] {
    const out: unknown[] = [];
    this.#feed(this.#decoder.decode(bytes), out);
    return out;
  }

  end(): unknown[] {
    const out: unknown[] = [];
    const rest = this.#decoder.end();
    if (rest !== '') this.#feed(rest, out);
    const last = this.#pending;
    this.#pending = '';
    this.#parse(last, out);
    return out;
  }

  #feed(text: string, out: unknown[]): void {
    let newline = text.indexOf('\n');
    if (newline === -1) {
      this.#pending += text;
      if (this.#pending.length > this.#max) {
        throw new StreamParseError(
          `a line is over ${this.#max} characters`,
          this.#line_number + 1,
          this.#pending.slice(0, 200),
        );
      }
      return;
    }
    let start = 0;
    let line = this.#pending + text.slice(0, newline);
    this.#pending = '';
    for (;;) {
      this.#parse(line, out);
      start = newline + 1;
      newline = text.indexOf('\n', start);
      if (newline === -1) break;
      line = text.slice(start, newline);
    }
    this.#pending = text.slice(start);
  }

  #parse(line: string, out: unknown[]): void {
    if (line === '') {
      this.#line_number += 1;
      return;
    }
    this.#line_number += 1;
    const text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (text.trim() === '') return;
    try {
      out.push(JSON.parse(text));
    } catch (error) {
      throw new StreamParseError(
        'not newline-delimited JSON: a line is not JSON',
        this.#line_number,
        text,
        { cause: error },
      );
    }
  }
}

/**
 * Reads newline-delimited JSON (Ollama's stream) as it arrives, yielding each parsed value.
 *
 * Contract: byte-chunk safe (lines and UTF-8 characters may be split anywhere); `\n` and `\r\n`
 * end lines; blank lines are skipped; a last line without a newline is parsed too; a line that is
 * not JSON throws a `StreamParseError` naming the line; the source's own errors are rethrown
 * unchanged; ending early, an error or an abort cancels the source.
 */
export function read_ndjson(
  source: ByteSource,
  options: ReadNdjsonOptions = {},
): AsyncGenerator<unknown, void, undefined> {
  const decoder = new NdjsonDecoder(options.max_line_chars ?? DEFAULT_MAX_LINE_CHARS);
  return decode_bytes(source, decoder, options.signal);
}

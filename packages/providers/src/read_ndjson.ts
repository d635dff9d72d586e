import { type ByteSource, iterate_bytes } from './byte_source.js';
import { StreamParseError } from './stream_parse_error.js';

/** Options of `read_ndjson`. */
export interface ReadNdjsonOptions {
  /** Stops reading: the pending read rejects with the signal's reason and the source is cancelled. */
  signal?: AbortSignal;
  /** A line longer than this many characters is an error. Default 16 MiB. */
  max_line_chars?: number;
}

const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

/**
 * Reads newline-delimited JSON (Ollama's stream) as it arrives, yielding each parsed value.
 *
 * Contract: byte-chunk safe (lines and UTF-8 characters may be split anywhere); `\n` and `\r\n`
 * end lines; blank lines are skipped; a last line without a newline is parsed too; a line that is
 * not JSON throws a `StreamParseError` naming the line; the source's own errors are rethrown
 * unchanged; ending early cancels the source.
 */
export async function* read_ndjson(
  source: ByteSource,
  options: ReadNdjsonOptions = {},
): AsyncGenerator<unknown, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  const max = options.max_line_chars ?? DEFAULT_MAX_LINE_CHARS;
  let pending = '';
  let line_number = 0;

  const parse = (line: string): { ok: true; value: unknown } | { ok: false } => {
    line_number += 1;
    const end = line.charCodeAt(line.length - 1) === 13 ? line.length - 1 : line.length;
    const text = end === line.length ? line : line.slice(0, end);
    if (text.trim() === '') return { ok: false };
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (error) {
      throw new StreamParseError(
        'not newline-delimited JSON: a line is not JSON',
        line_number,
        text,
        {
          cause: error,
        },
      );
    }
  };

  for await (const chunk of iterate_bytes(source, options.signal)) {
    const text = decoder.decode(chunk, { stream: true });
    let newline = text.indexOf('\n');
    if (newline === -1) {
      pending += text;
      if (pending.length > max) {
        throw new StreamParseError(
          `a line is over ${max} characters`,
          line_number + 1,
          pending.slice(0, 200),
        );
      }
      continue;
    }
    let start = 0;
    let line = pending + text.slice(0, newline);
    pending = '';
    for (;;) {
      const parsed = parse(line);
      if (parsed.ok) yield parsed.value;
      start = newline + 1;
      newline = text.indexOf('\n', start);
      if (newline === -1) break;
      line = text.slice(start, newline);
    }
    pending = text.slice(start);
  }
  pending += decoder.decode();
  const parsed = parse(pending);
  if (parsed.ok) yield parsed.value;
}

import { one_line } from '@lich/core';

const MARKER = Symbol.for('lich.stream_parse_error');

/**
 * A stream that is not valid SSE or NDJSON: an unknown SSE field, a line that is not JSON, an
 * event over the size limit. `line_number` is 1-based; `line` is an excerpt of the offending line.
 * Providers wrap it into a `ProviderError` of kind `parse` (`to_provider_error` does).
 */
export class StreamParseError extends Error {
  readonly [MARKER] = true;
  readonly line_number: number;
  readonly line: string;

  constructor(message: string, line_number: number, line: string, options?: { cause?: unknown }) {
    super(`${message} (line ${line_number}: '${one_line(line)}')`, options);
    this.name = 'StreamParseError';
    this.line_number = line_number;
    this.line = one_line(line);
  }

  /** True for any `StreamParseError`, including one from another copy of this package. */
  static is_instance(value: unknown): value is StreamParseError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

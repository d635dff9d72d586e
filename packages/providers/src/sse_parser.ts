import { StreamParseError } from './stream_parse_error.js';
import { Utf8Chunks } from './utf8_chunks.js';

/** One server-sent event. */
export interface SseEvent {
  /** The `event:` field, `'message'` when the event had none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last `id:` seen in the stream so far (it carries over, per the SSE spec). */
  id: string | undefined;
  /** The `retry:` field of this event, when it had a valid one. */
  retry: number | undefined;
}

/** Options of the SSE parser and `read_sse`. */
export interface SseParserOptions {
  /**
   * Reject lines whose field is not `data`, `event`, `id` or `retry` (a comment `:` is fine) with a
   * `StreamParseError`, instead of ignoring them as browsers do. Default `true`: model APIs send
   * only these fields, so anything else means the body is not an event stream (an HTML page…).
   */
  strict?: boolean;
  /** An event (or a line) larger than this many characters is an error. Default 16 MiB. */
  max_event_chars?: number;
  /** Hears each comment line's text (without the `:` and one leading space). */
  on_comment?: (text: string) => void;
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const COLON = 58;
const CR_BREAKS = /\r\n?/g;
const DEFAULT_MAX_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * A push parser of `text/event-stream` bytes: feed chunks with `push`, finish with `end`. Handles
 * lines split across chunks, UTF-8 characters split across chunks, `\r\n`, `\n` and lone `\r`
 * line ends (a `\r` at the end of one chunk and `\n` at the start of the next are one break),
 * comments, multi-line `data:`, `event:`, `id:` (not containing NUL) and `retry:` (digits only),
 * a BOM, and a final event with no blank line after it (dispatched by `end`).
 *
 * Contract: `push` and `end` return the events completed by the input, in order; they throw a
 * `StreamParseError` for an unknown field (in strict mode) or an oversized event.
 */
export class SseParser {
  readonly #decoder = new Utf8Chunks();
  readonly #strict: boolean;
  readonly #max: number;
  readonly #on_comment: ((text: string) => void) | undefined;
  /** The start of a line whose end has not arrived; never holds a line break. */
  #pending = '';
  #skip_lf = false;
  #data: string | undefined = undefined;
  #event_type = '';
  #last_id: string | undefined = undefined;
  #retry: number | undefined = undefined;
  #line_number = 0;
  #event_chars = 0;

  constructor(options: SseParserOptions = {}) {
    this.#strict = options.strict ?? true;
    this.#max = options.max_event_chars ?? DEFAULT_MAX_EVENT_CHARS;
    this.#on_comment = options.on_comment;
  }

  /** Parses one chunk of bytes; returns the events it completed. */
  push(bytes: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    const text = this.#decoder.decode(bytes);
    this.#feed(text, out, text.indexOf('\r') !== -1);
    return out;
  }

  /** Parses a chunk of already decoded text; returns the events it completed. */
  push_text(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    this.#feed(text, out, text.indexOf('\r') !== -1);
    return out;
  }

  /** Ends the stream: a last line and a last event without the blank line after it count. */
  end(): SseEvent[] {
    const out: SseEvent[] = [];
    const rest = this.#decoder.end();
    if (rest !== '') this.#feed(rest, out, rest.indexOf('\r') !== -1);
    if (this.#pending !== '') {
      const line = this.#pending;
      this.#pending = '';
      this.#line_number += 1;
      this.#line(line, 0, line.length, out);
    }
    this.#dispatch(out);
    return out;
  }

  #feed(chunk: string, out: SseEvent[], has_cr: boolean): void {
    let text = chunk;
    if (this.#skip_lf) {
      if (text.length === 0) return;
      this.#skip_lf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    // Line ends are normalised to `\n` so one tight loop serves all three kinds. A `\r` ending the
    // chunk may be the first half of a `\r\n` split across reads.
    if (has_cr) {
      if (text.charCodeAt(text.length - 1) === CR) this.#skip_lf = true;
      text = text.replace(CR_BREAKS, '\n');
    }
    // Only the new text is searched, so a long line arriving in many chunks is not rescanned.
    let lf = text.indexOf('\n');
    if (lf === -1) {
      this.#pending += text;
      if (this.#pending.length > this.#max) this.#too_big(this.#pending);
      return;
    }
    let position = 0;
    if (this.#pending !== '') {
      // The line begun in an earlier chunk is handled on its own, so the chunk is never copied
      // into a joined string.
      const first = this.#pending + text.slice(0, lf);
      this.#pending = '';
      this.#line_number += 1;
      this.#line(first, 0, first.length, out);
      position = lf + 1;
      lf = text.indexOf('\n', position);
    }
    // The hot state lives in locals during the loop and is written back before any other call.
    let lines = 0;
    let data = this.#data;
    let event_type = this.#event_type;
    let last_id = this.#last_id;
    let retry = this.#retry;
    const max = this.#max;
    while (lf !== -1) {
      lines += 1;
      if (lf === position) {
        if (data !== undefined) {
          out.push({ event: event_type === '' ? 'message' : event_type, data, id: last_id, retry });
          data = undefined;
        }
        event_type = '';
        retry = undefined;
        this.#event_chars = 0;
      } else if (
        text.charCodeAt(position) === 100 && // the hot path: `data:`
        text.charCodeAt(position + 4) === COLON &&
        text.charCodeAt(position + 1) === 97 &&
        text.charCodeAt(position + 2) === 116 &&
        text.charCodeAt(position + 3) === 97
      ) {
        const from = text.charCodeAt(position + 5) === SPACE ? position + 6 : position + 5;
        const value = text.slice(from, lf);
        if (data === undefined && text.charCodeAt(lf + 1) === LF) {
          // one data line and its blank line: dispatch without buffering
          lines += 1;
          if (lf - from > max) this.#too_big(value, lines);
          out.push({
            event: event_type === '' ? 'message' : event_type,
            data: value,
            id: last_id,
            retry,
          });
          event_type = '';
          retry = undefined;
          position = lf + 2;
          lf = text.indexOf('\n', position);
          continue;
        }
        this.#event_chars += value.length + 1;
        if (this.#event_chars > max) this.#too_big(value, lines);
        data = data === undefined ? value : `${data}\n${value}`;
      } else if (
        text.charCodeAt(position) === 101 && // `event:`
        text.charCodeAt(position + 5) === COLON &&
        text.charCodeAt(position + 1) === 118 &&
        text.charCodeAt(position + 2) === 101 &&
        text.charCodeAt(position + 3) === 110 &&
        text.charCodeAt(position + 4) === 116
      ) {
        event_type = text.slice(
          text.charCodeAt(position + 6) === SPACE ? position + 7 : position + 6,
          lf,
        );
      } else {
        this.#data = data;
        this.#event_type = event_type;
        this.#retry = retry;
        this.#line_number += lines;
        lines = 0;
        this.#line(text, position, lf, out);
        data = this.#data;
        event_type = this.#event_type;
        last_id = this.#last_id;
        retry = this.#retry;
      }
      position = lf + 1;
      lf = text.indexOf('\n', position);
    }
    this.#data = data;
    this.#event_type = event_type;
    this.#retry = retry;
    this.#line_number += lines;
    if (position < text.length) {
      this.#pending = text.slice(position);
      if (this.#pending.length > max) this.#too_big(this.#pending);
    }
  }

  /** Any line but the hot ones; `start < end`, the line runs from `start` to `end`. */
  #line(text: string, start: number, end: number, out: SseEvent[]): void {
    if (start === end) {
      this.#dispatch(out);
      return;
    }
    if (text.charCodeAt(start) === COLON) {
      if (this.#on_comment) {
        const from = text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1;
        this.#on_comment(text.slice(from, end));
      }
      return;
    }
    const colon = text.indexOf(':', start);
    let field: string;
    let value: string;
    if (colon === -1 || colon >= end) {
      field = text.slice(start, end);
      value = '';
    } else {
      field = text.slice(start, colon);
      const from = text.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
      value = text.slice(from, end);
    }
    switch (field) {
      case 'data':
        this.#append_data(value);
        return;
      case 'event':
        this.#event_type = value;
        return;
      case 'id':
        if (!value.includes('\u0000')) this.#last_id = value;
        return;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        return;
      default:
        if (this.#strict) {
          throw new StreamParseError(
            `not an event stream: unknown field '${field.slice(0, 40)}'`,
            this.#line_number,
            text.slice(start, end),
          );
        }
    }
  }

  #append_data(value: string): void {
    this.#event_chars += value.length + 1;
    if (this.#event_chars > this.#max) this.#too_big(value);
    this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
  }

  #dispatch(out: SseEvent[]): void {
    const data = this.#data;
    if (data !== undefined) {
      out.push({
        event: this.#event_type === '' ? 'message' : this.#event_type,
        data,
        id: this.#last_id,
        retry: this.#retry,
      });
    }
    this.#data = undefined;
    this.#event_type = '';
    this.#retry = undefined;
    this.#event_chars = 0;
  }

  /** `pending_lines`: lines of the current feed not yet added to `#line_number`. */
  #too_big(line: string, pending_lines = 1): never {
    throw new StreamParseError(
      `event stream: an event is over ${this.#max} characters`,
      this.#line_number + pending_lines,
      line.slice(0, 200),
    );
  }
}

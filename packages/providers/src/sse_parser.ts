import { StreamParseError } from './stream_parse_error.js';

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

const COLON = 58;
const SPACE = 32;
const LF = 10;
const D = 100;
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
  readonly #decoder = new TextDecoder('utf-8');
  readonly #strict: boolean;
  readonly #max: number;
  readonly #on_comment: ((text: string) => void) | undefined;
  #pending = '';
  #skip_lf = false;
  #data: string | undefined = undefined;
  #event_type = '';
  #last_id: string | undefined = undefined;
  #retry: number | undefined = undefined;
  #line_number = 0;
  #event_chars = 0;
  #out: SseEvent[] = [];

  constructor(options: SseParserOptions = {}) {
    this.#strict = options.strict ?? true;
    this.#max = options.max_event_chars ?? DEFAULT_MAX_EVENT_CHARS;
    this.#on_comment = options.on_comment;
  }

  /** Parses one chunk of bytes; returns the events it completed. */
  push(bytes: Uint8Array): SseEvent[] {
    this.#feed(this.#decoder.decode(bytes, { stream: true }));
    return this.#take();
  }

  /** Parses a chunk of already decoded text; returns the events it completed. */
  push_text(text: string): SseEvent[] {
    this.#feed(text);
    return this.#take();
  }

  /** Ends the stream: a last line and a last event without the blank line after it count. */
  end(): SseEvent[] {
    const rest = this.#decoder.decode();
    if (rest !== '') this.#feed(rest);
    if (this.#pending !== '') {
      const line = this.#pending;
      this.#pending = '';
      this.#line(line, 0, line.length);
    }
    this.#dispatch();
    return this.#take();
  }

  #take(): SseEvent[] {
    const out = this.#out;
    if (out.length > 0) this.#out = [];
    return out;
  }

  #feed(chunk: string): void {
    let text = chunk;
    if (this.#skip_lf) {
      if (text.length === 0) return;
      this.#skip_lf = false;
      if (text.charCodeAt(0) === LF) text = text.slice(1);
    }
    // Look for a line break in the new text only, so a long line arriving in many chunks is not
    // rescanned each time.
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    if (lf === -1 && cr === -1) {
      this.#pending += text;
      if (this.#pending.length > this.#max) this.#too_big(this.#pending);
      return;
    }
    if (this.#pending !== '') {
      const shift = this.#pending.length;
      text = this.#pending + text;
      this.#pending = '';
      if (lf !== -1) lf += shift;
      if (cr !== -1) cr += shift;
    }
    const length = text.length;
    let position = 0;
    while (position < length) {
      if (lf !== -1 && lf < position) lf = text.indexOf('\n', position);
      if (cr !== -1 && cr < position) cr = text.indexOf('\r', position);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 < length) {
          next = text.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        } else {
          next = length;
          this.#skip_lf = true;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        this.#pending = text.slice(position);
        if (this.#pending.length > this.#max) this.#too_big(this.#pending);
        return;
      }
      this.#line(text, position, end);
      position = next;
    }
  }

  #line(text: string, start: number, end: number): void {
    this.#line_number += 1;
    if (start === end) {
      this.#dispatch();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) {
      if (this.#on_comment) {
        const from = text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1;
        this.#on_comment(text.slice(from, end));
      }
      return;
    }
    // The hot path: `data:` lines.
    if (
      first === D &&
      end - start >= 5 &&
      text.charCodeAt(start + 4) === COLON &&
      text.startsWith('data', start)
    ) {
      const from = text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5;
      this.#append_data(text.slice(from, end));
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

  #dispatch(): void {
    const data = this.#data;
    if (data !== undefined) {
      this.#out.push({
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

  #too_big(line: string): never {
    throw new StreamParseError(
      `event stream: an event is over ${this.#max} characters`,
      this.#line_number + 1,
      line.slice(0, 200),
    );
  }
}

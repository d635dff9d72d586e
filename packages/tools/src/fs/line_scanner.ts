/** Where a `LineScanner` stopped before the end of its input, when it did. */
export type ScanStop = 'limit' | 'budget' | 'binary';

/** The lines a scanner keeps: `first`…`last` (1-based), within `budget` characters of output. */
export interface ScanWindow {
  first: number;
  last: number;
  /** The most characters of numbered output; the first line is always kept. */
  budget: number;
  /** A longer line is cut to this many characters (and marked). */
  max_line_chars: number;
}

/**
 * Numbered lines (`   12\ttext`, like `cat -n`) out of a byte stream fed chunk by chunk, for a
 * window of lines. Memory stays bounded: lines before the window are only counted, and of a
 * line only its first `4 × max_line_chars` bytes are kept.
 *
 * Contract: `push` takes each chunk in order and returns false once the scanner stopped (the
 * window's last line was passed, the budget is spent, or a line holds a NUL byte: binary data);
 * a chunk's bytes may be reused by the caller after `push` returns. `end` is called once at the
 * end of the input (a last line without `\n` counts). `\r\n` line ends lose their `\r`. Pure
 * computation; never throws.
 */
export class LineScanner {
  readonly #window: ScanWindow;
  /** What is kept of a line: enough bytes for `max_line_chars` 4-byte characters, and one more. */
  readonly #line_bytes: number;
  readonly lines: string[] = [];
  #chars = 0;
  /** The number of the line being read. */
  line = 1;
  /** The start of a line begun in an earlier chunk (its first bytes, copied). */
  #carried: Buffer[] = [];
  #carried_bytes = 0;
  #line_has_bytes = false;
  stopped: ScanStop | undefined;

  constructor(window: ScanWindow) {
    this.#window = window;
    this.#line_bytes = window.max_line_chars * 4 + 4;
  }

  /** Takes the next chunk; false once the scanner stopped. */
  push(chunk: Buffer): boolean {
    if (this.stopped !== undefined) return false;
    const { first, last } = this.#window;
    const size = chunk.length;
    /** The first NUL byte at or after the line being read (`size` when none). */
    let nul = -1;
    let start = 0;
    while (start < size) {
      if (this.line < first) {
        // before the window: count newlines only
        const newline = chunk.indexOf(10, start);
        if (newline === -1) {
          this.#line_has_bytes = true;
          return true;
        }
        this.line += 1;
        this.#line_has_bytes = false;
        start = newline + 1;
        continue;
      }
      if (this.line > last) {
        this.stopped = 'limit';
        return false;
      }
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? size : newline;
      const take_end = Math.min(end, start + this.#line_bytes - this.#carried_bytes);
      if (end > start) this.#line_has_bytes = true;
      if (take_end > start) {
        if (nul < start) {
          nul = chunk.indexOf(0, start);
          if (nul === -1) nul = size;
        }
        if (nul < take_end) {
          // text at the start, binary further on (a log with holes, an archive): stop here
          this.stopped = 'binary';
          return false;
        }
      }
      if (newline === -1) {
        // the line goes on in the next chunk: copied, since the caller reuses its buffer
        if (take_end > start) {
          this.#carried.push(Buffer.from(chunk.subarray(start, take_end)));
          this.#carried_bytes += take_end - start;
        }
        return true;
      }
      if (take_end > start) this.#carried.push(chunk.subarray(start, take_end));
      if (!this.#emit_carried()) return false;
      start = newline + 1;
    }
    return true;
  }

  /** The end of the input: a last line without `\n` is taken too. */
  end(): void {
    if (this.stopped !== undefined || !this.#line_has_bytes) return;
    if (this.line >= this.#window.first && this.line <= this.#window.last) this.#emit_carried();
    else this.line += 1;
  }

  /** How many lines of the input were seen (all of them once `end` was called unstopped). */
  get lines_seen(): number {
    return this.line - 1;
  }

  #emit_carried(): boolean {
    const whole =
      this.#carried.length === 1 ? (this.#carried[0] as Buffer) : Buffer.concat(this.#carried);
    this.#carried = [];
    this.#carried_bytes = 0;
    let text = whole.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    const { max_line_chars } = this.#window;
    if (text.length > max_line_chars || whole.length >= this.#line_bytes) {
      text = `${text.slice(0, max_line_chars)} …[line cut at ${max_line_chars} characters]`;
    }
    const entry = `${String(this.line).padStart(6)}\t${text}`;
    if (this.#chars + entry.length + 1 > this.#window.budget && this.lines.length > 0) {
      this.stopped = 'budget';
      return false;
    }
    this.lines.push(entry);
    this.#chars += entry.length + 1;
    this.#line_has_bytes = false;
    this.line += 1;
    return true;
  }
}

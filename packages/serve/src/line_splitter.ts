/** What a `LineSplitter` hands on: one line's text, or the fact that a line was too long. */
export type SplitLine =
  | { kind: 'line'; text: string }
  | { kind: 'oversize'; bytes: number; limit: number };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines on `\n` (0x0A) only. Node's `readline` also splits on U+2028
 * and U+2029, which JSON text may hold unescaped; this does not. Bytes are joined before they are
 * decoded, so a UTF-8 character cut between two chunks arrives whole.
 *
 * Contract:
 * - `push` returns the complete lines in order; an incomplete tail is kept for the next chunk;
 * - a line longer than `max_line_bytes` (without its `\n`) is never held whole: its bytes are
 *   dropped as they come and it is reported once as `oversize` when its `\n` arrives (or at
 *   `end`), so memory stays bounded whatever a peer sends;
 * - empty lines (and lines of only `\r`) are skipped; a trailing `\r` is kept (JSON ignores it);
 * - `end` returns the unterminated last line, if any.
 */
export class LineSplitter {
  readonly #max_line_bytes: number;
  #parts: Buffer[] = [];
  #held = 0;
  /** Bytes of the current line dropped for being over the limit (0: not oversize). */
  #dropped = 0;

  constructor(max_line_bytes: number) {
    this.#max_line_bytes = max_line_bytes;
  }

  /** Takes the next chunk; returns the lines it completed. */
  push(chunk: Buffer | string): SplitLine[] {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const out: SplitLine[] = [];
    let start = 0;
    while (start < bytes.length) {
      const at = bytes.indexOf(NEWLINE, start);
      const end = at === -1 ? bytes.length : at;
      this.#take(bytes.subarray(start, end));
      if (at === -1) break;
      this.#finish(out);
      start = at + 1;
    }
    return out;
  }

  /** The end of the stream: the last line when it had no `\n`. */
  end(): SplitLine[] {
    const out: SplitLine[] = [];
    this.#finish(out);
    return out;
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#dropped > 0) {
      this.#dropped += piece.length;
      return;
    }
    if (this.#held + piece.length > this.#max_line_bytes) {
      this.#dropped = this.#held + piece.length;
      this.#parts = [];
      this.#held = 0;
      return;
    }
    // copy: the caller may reuse its buffer
    this.#parts.push(Buffer.from(piece));
    this.#held += piece.length;
  }

  #finish(out: SplitLine[]): void {
    if (this.#dropped > 0) {
      out.push({ kind: 'oversize', bytes: this.#dropped, limit: this.#max_line_bytes });
      this.#dropped = 0;
      return;
    }
    if (this.#held === 0) return;
    const line = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts);
    this.#parts = [];
    this.#held = 0;
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    out.push({ kind: 'line', text });
  }
}

/**
 * The last lines of a stream (a server's stderr), in bounded memory, for error messages.
 */
export class LineTail {
  readonly #max_lines: number;
  readonly #max_line_chars: number;
  readonly #lines: string[] = [];
  #partial = '';

  constructor(options: { max_lines?: number; max_line_chars?: number } = {}) {
    this.#max_lines = options.max_lines ?? 20;
    this.#max_line_chars = options.max_line_chars ?? 500;
  }

  /** Takes one chunk; complete lines are kept, the last `max_lines` of them. Never throws. */
  push(chunk: Buffer | string): void {
    const text = this.#partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const parts = text.split(/\r?\n/);
    const last = parts.pop() ?? '';
    // a line that never ends must not grow without bound
    this.#partial = last.length > this.#max_line_chars ? this.#clip(last) : last;
    for (const part of parts) this.#keep(part);
  }

  /** The kept lines, the unfinished one included, joined by newlines. */
  text(): string {
    const lines = this.#partial === '' ? this.#lines : [...this.#lines, this.#partial];
    return lines.join('\n');
  }

  /** Forgets everything (a restarted server starts a fresh tail). */
  clear(): void {
    this.#lines.length = 0;
    this.#partial = '';
  }

  #keep(line: string): void {
    if (line.trim() === '') return;
    this.#lines.push(this.#clip(line));
    if (this.#lines.length > this.#max_lines) this.#lines.shift();
  }

  #clip(line: string): string {
    return line.length > this.#max_line_chars ? `${line.slice(0, this.#max_line_chars)}…` : line;
  }
}

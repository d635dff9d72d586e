/**
 * The one output format of `grep`, whichever engine searched: `path:line:text` for a match,
 * `path-line-text` for a context line, `--` between groups that are not adjacent (only when
 * context lines were asked for), paths relative to the work dir.
 */

/** A line of text longer than this is cut in `grep`'s output. */
export const GREP_MAX_LINE_CHARS = 500;

/** Why a search stopped early, if it did. */
export type GrepStop = 'matches' | 'chars';

/**
 * Collects the lines of one search in order and stops accepting them at a cap.
 *
 * Contract: `add_*` return false once a cap is reached (the engine should stop); `text()` gives the
 * lines joined, without a trailing separator.
 */
export class GrepCollector {
  readonly max_matches: number;
  readonly max_chars: number;
  readonly #lines: string[] = [];
  #chars = 0;
  #matches = 0;
  #files = new Set<string>();
  #stopped: GrepStop | undefined;

  constructor(options: { max_matches: number; max_chars: number }) {
    this.max_matches = options.max_matches;
    this.max_chars = options.max_chars;
  }

  /** Matching lines kept. */
  get matches(): number {
    return this.#matches;
  }

  /** Files with at least one kept match. */
  get file_count(): number {
    return this.#files.size;
  }

  /** Why the search stopped early, if it did. */
  get stopped(): GrepStop | undefined {
    return this.#stopped;
  }

  /** A matching line (1-based number). */
  add_match(path: string, line: number, text: string): boolean {
    if (this.#stopped !== undefined) return false;
    if (this.#matches >= this.max_matches) {
      this.#stopped = 'matches';
      return false;
    }
    if (!this.#push(`${path}:${line}:${clean(text)}`)) return false;
    this.#matches += 1;
    this.#files.add(path);
    return true;
  }

  /** A context line next to a match. */
  add_context(path: string, line: number, text: string): boolean {
    if (this.#stopped !== undefined) return false;
    return this.#push(`${path}-${line}-${clean(text)}`);
  }

  /** The `--` between groups. */
  add_separator(): boolean {
    if (this.#stopped !== undefined) return false;
    if (this.#lines.length === 0 || this.#lines[this.#lines.length - 1] === '--') return true;
    return this.#push('--');
  }

  #push(line: string): boolean {
    if (this.#chars + line.length + 1 > this.max_chars) {
      this.#stopped = 'chars';
      return false;
    }
    this.#lines.push(line);
    this.#chars += line.length + 1;
    return true;
  }

  /** The collected lines; a trailing `--` dropped. */
  text(): string {
    const lines =
      this.#lines[this.#lines.length - 1] === '--' ? this.#lines.slice(0, -1) : this.#lines;
    return lines.join('\n');
  }
}

function clean(text: string): string {
  const line = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (line.length <= GREP_MAX_LINE_CHARS) return line;
  return `${line.slice(0, GREP_MAX_LINE_CHARS)} …[line cut, ${line.length} chars]`;
}

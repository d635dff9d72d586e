import { closeSync, fstatSync, readFileSync } from 'node:fs';
import { GREP_JS_MAX_FILE_BYTES, open_checked } from './grep_js.js';

/**
 * Checks ripgrep's lines against the files as they are inside the work dir. ripgrep opens paths
 * by name, so a folder swapped for a link to somewhere outside while it searches would have it
 * print lines from outside. Each reported line is kept only when the file at that path, opened so
 * that no link can redirect it (`open_checked`), holds the same text at the same line number:
 * what is shown is then text of a file inside the work dir, whatever ripgrep read.
 *
 * One file is held at a time: ripgrep's lines come file by file.
 */
export class LineVerifier {
  readonly #root: string;
  readonly #visible: ((path: string) => boolean) | undefined;
  #path: Buffer | undefined;
  #lines: string[] | null = null;
  /** Lines dropped because the file no longer held them (or could not be opened safely). */
  dropped = 0;

  constructor(root: string, visible?: (path: string) => boolean) {
    this.#root = root;
    this.#visible = visible;
  }

  /**
   * True when `path` (relative to the work dir, as ripgrep printed its bytes) holds `text` at
   * line `number` (1-based).
   */
  check(path: Buffer, number: number, text: string): boolean {
    if (this.#path === undefined || !path.equals(this.#path)) {
      this.#path = Buffer.from(path);
      this.#lines = this.#read(this.#path);
    }
    const ok = this.#lines !== null && this.#lines[number - 1] === text;
    if (!ok) this.dropped += 1;
    return ok;
  }

  #read(path: Buffer): string[] | null {
    const full = Buffer.concat([Buffer.from(this.#root === '/' ? '/' : `${this.#root}/`), path]);
    const text = full.toString('utf8');
    if (text.split('/').includes('..') || (this.#visible !== undefined && !this.#visible(text))) {
      return null;
    }
    const fd = open_checked(full);
    if (fd === undefined) return null;
    try {
      if (fstatSync(fd).size > GREP_JS_MAX_FILE_BYTES) return null;
      return readFileSync(fd).toString('utf8').split('\n');
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

import { fstatSync, statSync } from 'node:fs';
import type { CliIo } from './context.js';

/** What stdin is: a terminal, the null device (nothing to read), or anything else (a pipe, a file). */
export type StdinKind = 'tty' | 'empty' | 'data';

/**
 * What `io.stdin` is. For the process's own stdin (`stdin_fd`) this is found with `fstat`
 * without creating `process.stdin`, which loads the stream modules (a few ms of every start);
 * for a test's stream, from its `isTTY`. Never throws.
 */
export async function stdin_kind(io: CliIo): Promise<StdinKind> {
  if (io.stdin_fd !== undefined) {
    try {
      const info = fstatSync(io.stdin_fd);
      if (!info.isCharacterDevice()) return 'data';
      if (info.rdev === statSync('/dev/null').rdev) return 'empty';
      const { isatty } = await import('node:tty');
      return isatty(io.stdin_fd) ? 'tty' : 'data';
    } catch {
      // no /dev/null (Windows) or an fd fstat refuses: ask the stream
    }
  }
  return io.stdin.isTTY === true ? 'tty' : 'data';
}

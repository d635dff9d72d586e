import type { Style } from './style.js';

/** The streams and environment a command works with (the process's, or a test's). */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /**
   * The file descriptor behind `stdin` when it is the process's own (0), so that what it is (a
   * terminal, /dev/null, a pipe) can be found without creating `process.stdin`; absent for a
   * test's stream.
   */
  stdin_fd?: number;
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** What a command is run with: its own arguments, the streams and their styles. */
export interface CommandContext {
  /** The arguments after the command name. */
  argv: readonly string[];
  io: CliIo;
  /** Colours for stdout and for stderr (off under NO_COLOR or when not a terminal). */
  out: Style;
  err: Style;
  /** Writes one line to stderr. */
  say(text: string): void;
  /** Writes a warning line to stderr (`lich: warning: …`). */
  warn(text: string): void;
}

/** A command: resolves with the exit code. */
export type Command = (context: CommandContext) => Promise<number>;

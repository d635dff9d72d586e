/** What to suggest for a misspelt word: the nearest of `candidates`, shown with `prefix`. */
export interface Suggestion {
  word: string;
  candidates: readonly string[];
  /** Put before the suggestion, e.g. `--` for options. */
  prefix?: string;
}

/**
 * A command line that cannot be run: an unknown command or option, a missing argument, a bad
 * value. `main` prints the message (with the nearest spelling, when `suggest` is set, and the
 * command's usage line) and exits with 2.
 */
export class UsageError extends Error {
  /** The command whose usage applies, when known. */
  readonly command: string | undefined;
  readonly suggest: Suggestion | undefined;

  constructor(message: string, command?: string, suggest?: Suggestion) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
    this.suggest = suggest;
  }
}

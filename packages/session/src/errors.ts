/** What went wrong with a session, in words a caller can branch on. */
export type SessionErrorCode =
  | 'invalid_id' // the id is empty, too long, or has `/`, `..` or other unsafe characters
  | 'not_found' // no session file with that id
  | 'exists' // a session with that id already exists (create never overwrites)
  | 'locked' // another live process (or handle) has the session open for writing
  | 'not_writable' // the session folder cannot be created or written
  | 'not_jsonl' // the file is not a Lich session transcript
  | 'corrupt' // a line in the middle of the file is not a valid record
  | 'newer_version' // records were written by a newer format version
  | 'write_failed' // a record could not be written (disk full, file too large, I/O error)
  | 'closed' // the handle was closed
  | 'invalid_record' // the record cannot be serialised (a programmer error)
  | 'invalid_query' // a search query is not a valid regular expression
  | 'aborted'; // the caller's signal fired

const MARKER = Symbol.for('lich.session_error');

/**
 * The one error type of `@lich/session`.
 *
 * Contract: `message` names the session file (or id) and says what to do about it; `code` is
 * stable; `line` is the 1-based line number when the problem is in one line of a file.
 * Use `SessionError.is_instance` rather than `instanceof`: it survives duplicated package copies.
 */
export class SessionError extends Error {
  readonly [MARKER] = true;
  readonly code: SessionErrorCode;
  readonly path: string | undefined;
  readonly line: number | undefined;

  constructor(
    code: SessionErrorCode,
    message: string,
    extra: { path?: string; line?: number; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'SessionError';
    this.code = code;
    this.path = extra.path;
    this.line = extra.line;
  }

  /** True for any `SessionError`, including one from another copy of this package. */
  static is_instance(value: unknown): value is SessionError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** The `code` of a Node.js system error (`ENOENT`, `EFBIG`…), or undefined. */
export function system_code(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The message of any thrown value. */
export function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Throws a `SessionError` with code `aborted` when `signal` has fired. */
export function throw_if_aborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) {
    throw new SessionError('aborted', `${what} was aborted`, { cause: signal.reason });
  }
}

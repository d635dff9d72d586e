/** What went wrong with a checkpoint store, in words a caller can branch on. */
export type CheckpointErrorCode =
  | 'not_found' // no checkpoint with that id (never made, or pruned)
  | 'invalid_id' // the id is not one this store makes
  | 'locked' // another live process held the store for longer than the wait allowed
  | 'corrupt' // an object or record in the store is missing or does not match its hash
  | 'not_writable' // the store folder cannot be created or written
  | 'no_work_dir' // the work folder does not exist or is not a folder
  | 'aborted'; // the caller's signal fired

const MARKER = Symbol.for('lich.checkpoint_error');

/**
 * The one error type of `@lich/checkpoints`.
 *
 * Contract: `message` names the store or checkpoint and says what to do about it; `code` is stable.
 * Use `CheckpointError.is_instance` rather than `instanceof`: it survives duplicated package copies.
 */
export class CheckpointError extends Error {
  readonly [MARKER] = true;
  readonly code: CheckpointErrorCode;

  constructor(code: CheckpointErrorCode, message: string, extra: { cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CheckpointError';
    this.code = code;
  }

  /** True for any `CheckpointError`, including one from another copy of this package. */
  static is_instance(value: unknown): value is CheckpointError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }
}

/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`…), or undefined. */
export function system_code(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The message of any thrown value. */
export function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Throws a `CheckpointError` with code `aborted` when `signal` has fired. */
export function throw_if_aborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) {
    throw new CheckpointError('aborted', `${what} was aborted`, { cause: signal.reason });
  }
}

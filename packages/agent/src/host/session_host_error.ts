/** Why a `SessionHost` method refused. */
export type SessionHostErrorCode =
  | 'unknown_session'
  | 'unknown_request'
  | 'shutting_down'
  | 'invalid_argument'
  /** The session has a run in flight (a rewind waits for it to end). */
  | 'busy'
  /** The session exists but cannot be opened: another process holds it, or its file is corrupt. */
  | 'unavailable';

/**
 * A `SessionHost` method's refusal: a session it does not know, a host shutting down, a bad
 * argument. Surfaces map `code` onto their own error codes.
 */
export class SessionHostError extends Error {
  readonly code: SessionHostErrorCode;

  constructor(code: SessionHostErrorCode, message: string) {
    super(message);
    this.name = 'SessionHostError';
    this.code = code;
  }

  /** True for a `SessionHostError`, even from another copy of this package. */
  static is_instance(value: unknown): value is SessionHostError {
    return (
      value instanceof Error &&
      value.name === 'SessionHostError' &&
      typeof (value as { code?: unknown }).code === 'string'
    );
  }
}

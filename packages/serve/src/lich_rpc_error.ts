import type { ErrorCodeName } from './protocol_errors.js';
import { ERROR_CODES } from './protocol_errors.js';

/** Where a client-side error came from. */
export type LichRpcErrorKind =
  /** The server answered with an error object: `code` and `data` are its. */
  | 'server'
  /** The connection dropped before the answer came; the request may or may not have run. */
  | 'disconnected'
  /** No answer within the request's `timeout_ms`. */
  | 'timeout'
  /** The client was closed (or gave up reconnecting). */
  | 'closed';

const NAMES = new Map<number, ErrorCodeName>(
  Object.entries(ERROR_CODES).map(([name, code]) => [code, name as ErrorCodeName]),
);

/**
 * A request of `LichClient` that failed. For `kind: 'server'`, `code` is the JSON-RPC code and
 * `code_name` its name in `ERROR_CODES` (`unknown_session`, `session_busy`, …) when it has one.
 */
export class LichRpcError extends Error {
  readonly kind: LichRpcErrorKind;
  readonly code: number;
  readonly code_name: ErrorCodeName | undefined;
  readonly data: unknown;

  constructor(kind: LichRpcErrorKind, message: string, code = 0, data?: unknown) {
    super(message);
    this.name = 'LichRpcError';
    this.kind = kind;
    this.code = code;
    this.code_name = NAMES.get(code);
    this.data = data;
  }

  /** True for a `LichRpcError`, even from another copy of this package. */
  static is_instance(value: unknown): value is LichRpcError {
    return (
      value instanceof Error &&
      value.name === 'LichRpcError' &&
      typeof (value as { kind?: unknown }).kind === 'string'
    );
  }
}

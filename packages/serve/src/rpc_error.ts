import { ERROR_CODES, type ErrorCodeName, type LichErrorData } from './protocol_errors.js';
import type { RpcErrorObject } from './protocol_methods.js';

/**
 * A refusal to answer with a JSON-RPC error. Thrown by method handlers; the connection turns it
 * into the error response. Any other thrown error becomes `internal_error` with its message.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: LichErrorData | undefined;

  constructor(name: ErrorCodeName, message: string, extra: Omit<LichErrorData, 'name'> = {}) {
    super(message);
    this.name = 'RpcError';
    this.code = ERROR_CODES[name];
    this.data = { name, ...extra };
  }

  /** The error object of the response. */
  to_object(): RpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

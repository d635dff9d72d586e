import { RpcError } from './rpc_error.js';

/**
 * Turns what a `SessionHost` method threw into the JSON-RPC error to answer. A `SessionHostError`
 * (recognised by its name and code, so any copy of `@lich/agent` will do) maps onto its Lich code;
 * an `RpcError` passes as it is; anything else is `internal_error` with its message.
 */
export function to_rpc_error(error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'SessionHostError') {
    const code = (error as { code?: unknown }).code;
    if (code === 'unknown_session') return new RpcError('unknown_session', message);
    if (code === 'shutting_down') return new RpcError('shutting_down', message);
    if (code === 'busy') return new RpcError('session_busy', message);
    if (code === 'invalid_argument' || code === 'unknown_request') {
      return new RpcError('invalid_params', message);
    }
  }
  return new RpcError('internal_error', message);
}

import type { RpcErrorObject, RpcId } from './protocol_methods.js';
import { RpcError } from './rpc_error.js';

/** One line read from a peer, classified. */
export type ReadMessage =
  | { kind: 'request'; id: RpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  /** An answer or an error object from the peer (the server sends no requests: ignored). */
  | { kind: 'response'; id: RpcId | null; result?: unknown; error?: RpcErrorObject }
  /** Not a message we can act on: answer `error` with `id` (null when it could not be read). */
  | { kind: 'invalid'; id: RpcId | null; error: RpcError };

function is_id(value: unknown): value is RpcId {
  return (typeof value === 'string' && value.length <= 256) || Number.isSafeInteger(value);
}

/**
 * Reads one line of JSON-RPC 2.0. Never throws.
 *
 * Contract: text that is not JSON is `parse_error`; an array (a batch) is `invalid_request` (this
 * protocol has no batches); an object without `jsonrpc: "2.0"` or with a non-string `method` is
 * `invalid_request`; ids are strings (≤ 256 characters) or safe integers, anything else is
 * `invalid_request` with a null id; `params`, when present, must be an object.
 */
export function read_message(line: string): ReadMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'invalid', id: null, error: new RpcError('parse_error', 'not JSON') };
  }
  if (Array.isArray(value)) {
    return {
      kind: 'invalid',
      id: null,
      error: new RpcError('invalid_request', 'batches are not supported: send one object per line'),
    };
  }
  if (value === null || typeof value !== 'object') {
    return {
      kind: 'invalid',
      id: null,
      error: new RpcError('invalid_request', 'a message is a JSON object'),
    };
  }
  const message = value as Record<string, unknown>;
  const has_id = 'id' in message && message.id !== null;
  const id = has_id && is_id(message.id) ? message.id : null;
  const invalid = (text: string): ReadMessage => ({
    kind: 'invalid',
    id,
    error: new RpcError('invalid_request', text),
  });
  if (message.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"');
  if (has_id && id === null) return invalid('id must be a string or an integer');
  if (!('method' in message)) {
    if ('result' in message || 'error' in message) {
      const error = message.error as RpcErrorObject | undefined;
      return { kind: 'response', id, result: message.result, ...(error ? { error } : {}) };
    }
    return invalid('a request needs a method');
  }
  if (typeof message.method !== 'string') return invalid('method must be a string');
  const params = message.params;
  if (
    params !== undefined &&
    (params === null || typeof params !== 'object' || Array.isArray(params))
  ) {
    if (id === null) return { kind: 'notification', method: message.method, params: undefined };
    return {
      kind: 'invalid',
      id,
      error: new RpcError('invalid_params', 'params must be an object'),
    };
  }
  if (id === null) return { kind: 'notification', method: message.method, params };
  return { kind: 'request', id, method: message.method, params };
}

/**
 * The error codes of the Lich serve protocol: JSON-RPC's own, and Lich's in the range JSON-RPC
 * leaves to servers (-32000 to -32099). A constant object, no imports.
 */
export const ERROR_CODES = {
  /** The line is not JSON. */
  parse_error: -32700,
  /** Not a JSON-RPC 2.0 request object (a batch array is refused with this code too). */
  invalid_request: -32600,
  method_not_found: -32601,
  /** Missing or ill-typed params, or an unsupported `protocol_version`. */
  invalid_params: -32602,
  internal_error: -32603,
  /** No token or a wrong one (in the `Authorization` header or in `initialize`). */
  unauthenticated: -32001,
  /** The session has a run in flight (`prompt.submit` with `queue: false`, `session.rewind`). */
  session_busy: -32002,
  /** No session with that id. */
  unknown_session: -32003,
  /** A message longer than `limits.max_message_bytes`. */
  payload_too_large: -32004,
  /** Too many failed authentications, or too many requests unanswered at once. */
  rate_limited: -32005,
  /** The server is shutting down. */
  shutting_down: -32006,
  /** A method before `initialize`, or `initialize` twice. */
  not_initialized: -32007,
} as const;

/** The name of an error code. */
export type ErrorCodeName = keyof typeof ERROR_CODES;

/** The `data` of a Lich error: its name, and for `rate_limited` when to try again. */
export interface LichErrorData {
  name: ErrorCodeName;
  /** `rate_limited`: wait this long before the next attempt. */
  retry_after_ms?: number;
}

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = {
  /** The server is stopping. */
  going_away: 1001,
  /** Authentication failed, or `initialize` did not come in time. */
  policy_violation: 1008,
  /** A frame over the transport's hard limit. */
  message_too_big: 1009,
  /** The client read too slowly: reconnect and resubscribe with `after_seq`. */
  too_slow: 4000,
} as const;

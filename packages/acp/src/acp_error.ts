import type { SessionHostErrorCode } from '@lich/agent';
import { acp_errors } from './acp_sdk.js';

/** The message of a thrown value: an `Error`'s message, anything else as a string. */
export function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * True for a `SessionHostError`, by the same check as its `is_instance`. Written here so this
 * package loads nothing of `@lich/agent` at run time: the CLI runs it beside its own bundled copy
 * of the agent.
 */
export function is_host_error(value: unknown): value is Error & { code: SessionHostErrorCode } {
  return (
    value instanceof Error &&
    value.name === 'SessionHostError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/**
 * A host refusal as an ACP error: an unknown session is `session_not_found` (of `session_id`), an
 * invalid argument `invalid_params`, any other failure `internal` with its message.
 */
export function acp_error(error: unknown, session_id?: string): Error {
  if (is_host_error(error)) {
    if (error.code === 'unknown_session') return acp_errors.session_not_found(session_id ?? '');
    if (error.code === 'invalid_argument') return acp_errors.invalid_params(error.message);
    return acp_errors.internal(error.message);
  }
  return acp_errors.internal(error_text(error));
}

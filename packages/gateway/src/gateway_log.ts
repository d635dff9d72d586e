/** One line for the operator's log. */
export interface GatewayLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  conversation_key?: string;
}

/**
 * Logs `what` failed, with the error's message, at `warn` for the conversation (when one is
 * named). Contract: never throws; a non-`Error` is logged as its string.
 */
export function log_warning(
  log: (entry: GatewayLogEntry) => void,
  conversation_key: string | undefined,
  what: string,
  error: unknown,
): void {
  const reason = error instanceof Error ? error.message : String(error);
  log({ level: 'warn', message: `${what}: ${reason}`, conversation_key });
}

/** One line for the operator's log. */
export interface GatewayLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  conversation_key?: string;
}

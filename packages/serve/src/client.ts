/**
 * `@lich/serve/client`: a typed client of `lich serve`, over WebSocket or a spawned
 * `lich serve --stdio`. It loads nothing of the agent.
 *
 * ```ts
 * const client = await LichClient.connect({
 *   transport: stdio_transport({ command: 'lich', args: ['serve', '--stdio'] }),
 * });
 * const session = await client.request('session.new', {});
 * client.on_event((event) => console.log(event.type, event.payload));
 * await client.subscribe(session.session_id);
 * await client.prompt(session.session_id, 'hello');
 * ```
 */
export {
  type ClientTransport,
  type StdioTransportOptions,
  type StreamTransportOptions,
  stdio_transport,
  stream_transport,
  type TransportHandlers,
  type TransportLink,
  type WsTransportOptions,
  ws_transport,
} from './client_transports.js';
export {
  type ClientNotices,
  type ClientState,
  LichClient,
  type LichClientOptions,
  type ReconnectOptions,
  type RequestOptions,
  type SubscribeOutcome,
} from './lich_client.js';
export { LichRpcError, type LichRpcErrorKind } from './lich_rpc_error.js';
export type {
  EventParams,
  EventPayloads,
  EventType,
  InitializeResult,
  MethodName,
  MethodParams,
  MethodResult,
} from './protocol.js';
export { ERROR_CODES } from './protocol_errors.js';

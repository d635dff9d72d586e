export {
  AuthGate,
  type AuthGateOptions,
  type AuthVerdict,
  make_token,
} from './auth_gate.js';
export { LineSplitter, type SplitLine } from './line_splitter.js';
export {
  type GuardOptions,
  type GuardVerdict,
  guard_request,
  LOOPBACK_HOSTS,
} from './request_guard.js';
export { RpcError } from './rpc_error.js';
export {
  type ConnectOptions,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_PENDING_REQUESTS,
  ServeCore,
  type ServeCoreOptions,
  type ServerInfo,
} from './serve_core.js';
export {
  type CloseReason,
  type ConnectionPeer,
  type ConnectionState,
  ServerConnection,
} from './server_connection.js';
export { type StdioServer, type StdioServerOptions, start_stdio_server } from './stdio_server.js';
export {
  read_token_file,
  remove_token_file,
  type TokenFile,
  token_file_path,
  write_token_file,
} from './token_file.js';
export { RPC_PATH, start_ws_server, type WsServer, type WsServerOptions } from './ws_server.js';

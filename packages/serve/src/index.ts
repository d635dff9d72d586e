export { AuthGate, type AuthGateOptions, type AuthVerdict, make_token } from './auth_gate.js';
export { RpcError } from './rpc_error.js';
export {
  type ConnectOptions,
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
export { start_ws_server, type WsServer, type WsServerOptions } from './ws_server.js';

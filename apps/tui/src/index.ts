export type { ConnectionState, TuiClient } from './client.js';
export { LOCAL_COMMANDS, type OpenSession, TuiController } from './controller.js';
export { deferred_client } from './deferred_client.js';
export { create_host_client } from './host_client.js';
export { type RunTuiOptions, run_tui } from './run_tui.js';
export { create_serve_client, type ServeClientOptions } from './serve_client.js';
export { initial_state, reduce } from './state.js';
export type {
  Block,
  LiveTurn,
  PermissionView,
  StatusView,
  ToolView,
  TuiAction,
  TuiState,
} from './state_types.js';
export { create_store, type TuiStore } from './store.js';

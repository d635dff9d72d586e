export { AcpAgent, type AcpAgentOptions } from './acp_agent.js';
export {
  type AcpClientPeer,
  type AcpStream,
  byte_stream,
  type ClientTerminal,
  node_stream,
} from './acp_sdk.js';
export {
  CLIENT_TERMINAL_OUTPUT_BYTES,
  type ClientToolsOptions,
  client_tools,
} from './client_tools.js';
export { replay_history } from './history_replay.js';
export { type HostFactory, HostPool, type HostSetup } from './host_pool.js';
export { type AcpMcpCatalog, acp_mcp_catalog } from './mcp_servers.js';
export { PERMISSION_LABELS, permission_answer, permission_request } from './permissions.js';
export { plan_entries } from './plan.js';
export { prompt_input, slash_command } from './prompt_input.js';
export { type AcpServer, serve_acp, serve_acp_stdio } from './serve_acp.js';
export {
  APPROVAL_MODES,
  MODE_OPTION,
  MODEL_OPTION,
  session_config_options,
  session_modes,
} from './session_options.js';
export { acp_stop_reason } from './stop_reason.js';
export { describe_tool_call, type ToolDisplay } from './tool_display.js';
export { SessionUpdateMapper } from './update_mapping.js';

export type { AttachMcpOptions, McpAttachFailure, McpAttachment } from './attach.js';
export { attach_mcp } from './attach.js';
export { backoff_ms, RESTART_BACKOFF_BASE_MS, RESTART_BACKOFF_MAX_MS } from './backoff.js';
export type { McpCallOutput } from './call_result.js';
export { DEFAULT_MAX_OUTPUT_CHARS, map_call_result } from './call_result.js';
export type {
  CatalogResult,
  ImportResult,
  McpCatalog,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerConfigInput,
  McpStdioServerConfig,
} from './catalog.js';
export {
  DEFAULT_MCP_TIMEOUT_MS,
  import_mcp_json,
  is_stdio_server,
  MCP_SERVER_NAME_PATTERN,
  McpHttpServerSchema,
  McpServerConfigSchema,
  McpServersSchema,
  McpStdioServerSchema,
  parse_mcp_catalog,
} from './catalog.js';
export type {
  ConfigEditOptions,
  ConfigEditResult,
  McpServerListResult,
  McpServerSummary,
} from './config_edit.js';
export {
  add_mcp_server,
  list_mcp_servers,
  remove_mcp_server,
  set_mcp_server_enabled,
  WORK_DIR_CONFIG_PATH,
  work_dir_config_path,
} from './config_edit.js';
export type {
  McpCallOptions,
  McpConnectionOptions,
  McpConnectResult,
  McpServerState,
} from './connection.js';
export { McpConnection } from './connection.js';
export type { McpListedTool } from './listed_tool.js';
export { create_mcp_tool, McpArgumentsSchema } from './mcp_tool.js';
export { redact_secrets } from './redact.js';
export { MAX_TOOL_NAME_LENGTH, safe_mcp_tool_name, safe_server_name } from './tool_names.js';

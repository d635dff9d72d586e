export type { AttachMcpOptions, McpAttachFailure, McpAttachment } from './attach.js';
export { attach_mcp } from './attach.js';
export type { McpCallOutput } from './call_result.js';
export type {
  CatalogResult,
  ImportResult,
  McpCatalog,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerConfigInput,
  McpStdioServerConfig,
} from './catalog.js';
export { import_mcp_json, parse_mcp_catalog } from './catalog.js';
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
  work_dir_config_path,
} from './config_edit.js';
export type {
  McpCallOptions,
  McpConnectionOptions,
  McpConnectResult,
  McpServerState,
} from './connection.js';
export { McpConnection } from './connection.js';
export type { McpHealth } from './health.js';
export { check_mcp_servers } from './health.js';
export type { McpListedTool } from './listed_tool.js';
export { create_mcp_tool } from './mcp_tool.js';

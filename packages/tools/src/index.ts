export type { Tool, ToolOutput, ToolRegistrar, ToolRunContext } from '@lich/core';
export {
  BUILTIN_TOOL_NAMES,
  BUILTIN_TOOLS,
  builtin_tool,
  register_builtins,
} from './builtins.js';
export type {
  BeforeToolCallResult,
  HookReturn,
  ToolExecutorOptions,
  ToolHooks,
} from './executor.js';
export {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  ToolExecutor,
} from './executor.js';
export { edit_file_tool } from './fs/edit_file.js';
export { apply_exact_edit, unified_diff } from './fs/exact_edit.js';
export { glob_tool } from './fs/glob.js';
export type { GuardedPath, GuardOptions, GuardResult } from './fs/guard.js';
export {
  PathGuardError,
  require_in_work_dir,
  resolve_in_work_dir,
} from './fs/guard.js';
export { list_dir_tool } from './fs/list_dir.js';
export { path_inside } from './fs/path_inside.js';
export {
  READ_FILE_DEFAULT_LIMIT,
  READ_FILE_MAX_LINE_CHARS,
  read_file_tool,
} from './fs/read_file.js';
export type { AtomicWriteOptions, AtomicWriteResult, OpenedFile } from './fs/safe_fs.js';
export { open_in_work_dir, write_file_atomic } from './fs/safe_fs.js';
export { BINARY_SAMPLE_BYTES, looks_binary } from './fs/text.js';
export { write_file_tool } from './fs/write_file.js';
export type { GatekeeperOptions } from './gatekeeper.js';
export { gatekeeper_plugin, SAFE_GIT_SETTINGS } from './gatekeeper.js';
export type { GrepEngine, GrepOptions, GrepResult } from './grep/grep.js';
export { grep_search, grep_tool } from './grep/grep.js';
export { find_ripgrep } from './grep/grep_rg.js';
export { nearest_word } from './nearest_names.js';
export type {
  AfterToolCallHook,
  BeforeToolCallHook,
  EventHook,
  JsonSchemaTool,
  Plugin,
  PluginApi,
  PluginCommand,
  PluginCommandContext,
  PluginCommandResult,
  PluginFailure,
} from './plugin.js';
export { COMMAND_NAME_PATTERN, PluginError, PluginHost } from './plugin.js';
export type { ToolFilter } from './registry.js';
export { ToolRegistry, ToolRegistryError } from './registry.js';
export type { DeniedPath } from './sandbox/deny_read.js';
export { DEFAULT_DENY_READ, deny_read_paths } from './sandbox/deny_read.js';
export { DEFAULT_MAX_PROCESSES, process_limit_kind } from './sandbox/process_limit.js';
export type {
  PreparedCommand,
  RefusedCommand,
  SandboxOptions,
  SandboxUsed,
} from './sandbox/sandbox.js';
export { Sandbox } from './sandbox/sandbox.js';
export type { SandboxConfig, SandboxMode, SandboxNetwork } from './sandbox/sandbox_config.js';
export { DEFAULT_SANDBOX_CONFIG } from './sandbox/sandbox_config.js';
export type { SandboxCheck, SandboxKind, SandboxSupport } from './sandbox/sandbox_support.js';
export { probe_sandbox } from './sandbox/sandbox_support.js';
export { unix_socket_filter } from './sandbox/seccomp_filter.js';
export { BASE_ENV_NAMES } from './shell/env.js';
export type { HardlineRule, HardlineViolation } from './shell/hardline.js';
export { check_hardline } from './shell/hardline.js';
export {
  run_shell_command,
  type ShellCommandOptions,
  type ShellCommandOutcome,
  TERMINAL_TIMEOUT_MS,
  terminal_tool,
} from './shell/terminal.js';
export { run_tests_tool } from './tests/run_tests.js';
export type { IpBytes } from './web/ip_ranges.js';
export { ip_bytes, refused_range } from './web/ip_ranges.js';
export type {
  WebConnector,
  WebConnectRequest,
  WebConnectResponse,
} from './web/web_connect.js';
export { node_web_connector } from './web/web_connect.js';
export type { WebFetchArgs, WebFetchOptions } from './web/web_fetch.js';
export {
  create_web_fetch_tool,
  system_resolver,
  WEB_FETCH_DEFAULT_CHARS,
  WEB_FETCH_MAX_BYTES,
  WEB_FETCH_MAX_REDIRECTS,
  web_fetch_tool,
} from './web/web_fetch.js';
export type { ResolvedAddress, WebRefusal, WebResolver, WebTarget } from './web/web_target.js';
export { check_web_target, parse_web_url } from './web/web_target.js';

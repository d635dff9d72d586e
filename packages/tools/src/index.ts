export type { Tool, ToolOutput, ToolRegistrar, ToolRunContext } from '@lich/core';
// Each builtin module adds its tool to BUILTIN_TOOLS when it loads: the tool objects are
// exported (a library user can register one alone), which keeps every module loaded.
export { edit_file_tool } from './edit_file.js';
export { apply_exact_edit, unified_diff } from './exact_edit.js';
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
export type { GatekeeperOptions } from './gatekeeper.js';
export { gatekeeper_plugin } from './gatekeeper.js';
export { glob_tool } from './glob.js';
export type { GrepEngine, GrepOptions, GrepResult } from './grep.js';
export { grep_search, grep_tool } from './grep.js';
export { find_ripgrep } from './grep_rg.js';
export type { GuardedPath, GuardOptions, GuardResult } from './guard.js';
export {
  is_plain_relative_path,
  PathGuardError,
  require_in_work_dir,
  resolve_in_work_dir,
} from './guard.js';
export type { HardlineRule, HardlineViolation } from './hardline.js';
export { check_hardline } from './hardline.js';
export { list_dir_tool } from './list_dir.js';
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
export { READ_FILE_DEFAULT_LIMIT, READ_FILE_MAX_LINE_CHARS, read_file_tool } from './read_file.js';
export type { ToolFilter } from './registry.js';
export {
  BUILTIN_ORDER,
  BUILTIN_TOOLS,
  builtin_names,
  register_builtins,
  ToolRegistry,
  ToolRegistryError,
} from './registry.js';
export { run_tests_tool } from './run_tests.js';
export type { AtomicWriteOptions, AtomicWriteResult, OpenedFile } from './safe_fs.js';
export { open_in_work_dir, write_file_atomic } from './safe_fs.js';
export type {
  PreparedCommand,
  RefusedCommand,
  SandboxOptions,
  SandboxUsed,
} from './sandbox.js';
export { Sandbox } from './sandbox.js';
export type { SandboxConfig, SandboxMode, SandboxNetwork } from './sandbox_config.js';
export { DEFAULT_SANDBOX_CONFIG } from './sandbox_config.js';
export type { SandboxCheck, SandboxKind, SandboxSupport } from './sandbox_support.js';
export { probe_sandbox } from './sandbox_support.js';
export { TERMINAL_TIMEOUT_MS, terminal_tool } from './terminal.js';
export { BINARY_SAMPLE_BYTES, looks_binary } from './text.js';
export { write_file_tool } from './write_file.js';

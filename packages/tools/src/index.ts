export type { Tool, ToolOutput, ToolRegistrar, ToolRunContext } from '@lich/core';
export { edit_distance, MAX_EDIT_DISTANCE_LENGTH } from './edit_distance.js';
export type { EditFileArgs } from './edit_file.js';
export { EDIT_FILE_MAX_BYTES, edit_file_tool } from './edit_file.js';
export { child_env, env_passthrough_of, SECRET_NAME_PATTERN } from './env.js';
export type { ExactEdit, ExactEditResult } from './exact_edit.js';
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
export type { GatekeeperOptions, GitCommitArgs } from './gatekeeper.js';
export { create_git_commit_tool, gatekeeper_plugin, runs_git_commit } from './gatekeeper.js';
export { GitIgnoreFilter } from './gitignore.js';
export type { GlobArgs } from './glob.js';
export { GLOB_MAX_RESULTS, glob_tool } from './glob.js';
export type { GrepArgs, GrepEngine, GrepOptions, GrepResult } from './grep.js';
export { GREP_MAX_CONTEXT, GREP_MAX_MATCHES, grep_search, grep_tool } from './grep.js';
export { compile_pattern, GREP_JS_MAX_FILE_BYTES } from './grep_js.js';
export { GREP_MAX_LINE_CHARS } from './grep_output.js';
export { find_ripgrep, ripgrep_arguments } from './grep_rg.js';
export type { GuardedPath, GuardOptions, GuardResult } from './guard.js';
export {
  MAX_LINK_HOPS,
  MAX_PATH_BYTES,
  PathGuardError,
  PROTECTED_DIRS,
  require_in_work_dir,
  resolve_in_work_dir,
} from './guard.js';
export type { HardlineRule, HardlineViolation } from './hardline.js';
export { check_hardline } from './hardline.js';
export type { ListDirArgs } from './list_dir.js';
export { format_size, LIST_DIR_MAX_ENTRIES, list_dir_tool } from './list_dir.js';
export { nearest_names, nearest_word } from './nearest_names.js';
export type { OverrideVerdict } from './override_glob.js';
export { OverrideGlobs } from './override_glob.js';
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
export type { RunMarker } from './process_marker.js';
export { RUN_MARKER_NAME } from './process_marker.js';
export type { ProcessOutcome, RunProcessOptions } from './process_tree.js';
export { KILL_GRACE_MS, kill_process_tree, run_process } from './process_tree.js';
export type { ReadFileArgs } from './read_file.js';
export { READ_FILE_DEFAULT_LIMIT, READ_FILE_MAX_LINE_CHARS, read_file_tool } from './read_file.js';
export type { ToolFilter } from './registry.js';
export {
  BUILTIN_ORDER,
  BUILTIN_TOOLS,
  builtin_names,
  define_builtin,
  register_builtins,
  TOOL_NAME_PATTERN,
  ToolRegistry,
  ToolRegistryError,
} from './registry.js';
export type { RunProjectTestsOptions, RunTestsArgs, TestRunReport } from './run_tests.js';
export { RUN_TESTS_TIMEOUT_MS, run_project_tests, run_tests_tool } from './run_tests.js';
export type { AtomicWriteOptions, AtomicWriteResult, OpenedFile } from './safe_fs.js';
export { open_in_work_dir, write_file_atomic } from './safe_fs.js';
export type {
  PreparedCommand,
  RefusedCommand,
  SandboxOptions,
  SandboxUsed,
} from './sandbox.js';
export { Sandbox, sandbox_of } from './sandbox.js';
export type { SandboxConfig, SandboxMode, SandboxNetwork } from './sandbox_config.js';
export { DEFAULT_SANDBOX_CONFIG, read_sandbox_config } from './sandbox_config.js';
export { FORWARDER_SOURCE, SANDBOX_PROXY_PORT } from './sandbox_forwarder.js';
export type { SandboxPlan } from './sandbox_plan.js';
export { bwrap_arguments, seatbelt_profile } from './sandbox_plan.js';
export type { AllowListProxy } from './sandbox_proxy.js';
export { host_allowed, start_allow_list_proxy } from './sandbox_proxy.js';
export type {
  BwrapFeatures,
  SandboxCheck,
  SandboxKind,
  SandboxSupport,
} from './sandbox_support.js';
export { probe_sandbox } from './sandbox_support.js';
export type { ArgumentsResult } from './schema.js';
export {
  coerce_arguments,
  describe_parameters,
  parse_arguments,
  to_json_schema,
} from './schema.js';
export type { ShellCommandOptions, ShellCommandOutcome, TerminalArgs } from './terminal.js';
export {
  describe_ending,
  run_shell_command,
  TERMINAL_TIMEOUT_MS,
  terminal_tool,
} from './terminal.js';
export type { TestCounts } from './test_counts.js';
export { failure_section, parse_test_counts, strip_ansi } from './test_counts.js';
export type { TestCommand, TestCommandKind } from './test_detect.js';
export { detect_test_command, TEST_COMMAND_SOURCES } from './test_detect.js';
export { BINARY_SAMPLE_BYTES, decode_utf8_exact, looks_binary } from './text.js';
export type { WriteFileArgs } from './write_file.js';
export { write_file_tool } from './write_file.js';

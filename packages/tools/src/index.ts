export { child_env, env_passthrough_of, SECRET_NAME_PATTERN } from './env.js';
export type { BeforeToolCallResult, ToolExecutorOptions, ToolHooks } from './executor.js';
export {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  nearest_names,
  ToolExecutor,
} from './executor.js';
export type { HardlineRule, HardlineViolation } from './hardline.js';
export { check_hardline } from './hardline.js';
export type { ProcessOutcome, RunProcessOptions } from './process_tree.js';
export { KILL_GRACE_MS, kill_process_tree, run_process } from './process_tree.js';
export type { ToolFilter } from './registry.js';
export {
  BUILTIN_TOOLS,
  define_builtin,
  register_builtins,
  TOOL_NAME_PATTERN,
  ToolRegistry,
  ToolRegistryError,
} from './registry.js';
export type { ArgumentsResult } from './schema.js';
export {
  coerce_arguments,
  describe_parameters,
  parse_arguments,
  to_json_schema,
} from './schema.js';
export type { ShellCommandOptions, TerminalArgs } from './terminal.js';
export {
  describe_ending,
  run_shell_command,
  TERMINAL_TIMEOUT_MS,
  terminal_tool,
} from './terminal.js';
export type { Tool, ToolOutput, ToolRunContext } from './tool.js';

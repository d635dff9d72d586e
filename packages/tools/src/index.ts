export type { BeforeToolCallResult, ToolExecutorOptions, ToolHooks } from './executor.js';
export {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  nearest_names,
  ToolExecutor,
} from './executor.js';
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
export type { Tool, ToolOutput, ToolRunContext } from './tool.js';

import { BUILTIN_TOOL_NAMES } from '@lich/tools';

/** The names of the builtin tools, in registration order: what an absent `tools_enabled` allows. */
export function builtin_tool_names(): string[] {
  return [...BUILTIN_TOOL_NAMES];
}

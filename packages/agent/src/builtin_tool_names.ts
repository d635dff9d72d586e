import { BUILTIN_TOOL_NAMES } from '@lich/tools';
import { AGENT_TOOL_NAMES } from './toolbox/agent_tools.js';

/** The names of the builtin tools and the agent's own, in registration order: what an absent `tools_enabled` allows. */
export function builtin_tool_names(): string[] {
  return [...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES];
}

import { BUILTIN_TOOL_NAMES, BUILTIN_TOOLS, type Tool, ToolRegistry } from '@lich/tools';
import type { AgentConfig } from '../config/config_schema.js';
import { tool_allowed } from '../permissions/tool_allowlist.js';
import { AGENT_TOOL_NAMES, AGENT_TOOLS } from './agent_tools.js';

/** An agent's tool registry, and every tool name known before the config filtered them. */
export interface AgentRegistry {
  registry: ToolRegistry;
  /** Every tool name that existed before `tools_enabled`/`tools_disabled` filtered them. */
  known_tools: Set<string>;
}

/**
 * The tool registry of an agent: the builtins (Lich's and the agent's) in their order, an extra
 * tool of a builtin's name in that builtin's place, then the other extra tools. One filter at the
 * registry's door (`tools_enabled`, `tools_disabled`) admits builtins, extra tools, plugins and
 * MCP tools alike. Throws when two extra tools share a name that is not a builtin's.
 */
export function agent_registry(
  config: Pick<AgentConfig, 'tools_enabled' | 'tools_disabled'>,
  tools: readonly Tool<never>[] = [],
): AgentRegistry {
  const allowed = config.tools_enabled;
  const disabled = config.tools_disabled;
  const known_tools = new Set<string>([...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES]);
  // one filter at the registry's door: builtins, extra tools, plugins and MCP tools (at attach
  // and on every tool-list change) all pass through it
  const registry = new ToolRegistry({
    admit: (name) => tool_allowed(name, allowed, disabled),
  });
  // builtins in BUILTIN_TOOLS order; an extra tool of a builtin's name takes its place
  const extra = new Map(tools.map((tool) => [tool.name, tool]));
  for (const builtin of [...BUILTIN_TOOLS, ...AGENT_TOOLS]) {
    registry.register(extra.get(builtin.name) ?? builtin);
  }
  for (const tool of tools) {
    known_tools.add(tool.name);
    // a second extra tool of the same name still throws, as before
    if (!is_builtin(tool.name)) registry.register(tool);
  }
  return { registry, known_tools };
}

function is_builtin(name: string): boolean {
  return BUILTIN_TOOL_NAMES.includes(name) || AGENT_TOOL_NAMES.includes(name);
}

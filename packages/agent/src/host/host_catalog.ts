import type { Agent } from '../agent.js';
import { tool_allowed } from '../permissions/tool_allowlist.js';
import type { ModelInfo, ToolInfo } from './session_host_types.js';

/** The agent's configured models, in chain order; the first is the default. */
export function host_models(agent: Agent): ModelInfo[] {
  return agent.config.providers.map((entry, index) => ({
    provider: entry.kind,
    model: entry.model,
    default: index === 0,
  }));
}

/** The registered tools that `tools_enabled` lets runs use, with their descriptions. */
export function host_tools(agent: Agent): ToolInfo[] {
  const enabled = agent.config.tools_enabled;
  return agent.registry
    .list()
    .filter((tool) => tool_allowed(tool.name, enabled))
    .map((tool) => ({ name: tool.name, description: tool.description }));
}

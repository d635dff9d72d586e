import type { AgentConfig } from '../config/config_schema.js';

/**
 * The builtin tools whose calls can change the work dir: the two edit tools, and the two that
 * run commands (a command may write anything the sandbox lets it, which is the work dir).
 * `git_commit` (the gatekeeper plugin) runs the tests first.
 */
export const WRITING_TOOLS: ReadonlySet<string> = new Set([
  'write_file',
  'edit_file',
  'terminal',
  'run_tests',
  'git_commit',
]);

function glob_regex(pattern: string): RegExp {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/**
 * Which tool calls count as a change (the first of a prompt takes a checkpoint first): the
 * builtins of `WRITING_TOOLS`, every tool of an MCP server marked `writes: true`
 * (`mcp_<server>_<tool>`), and the names or `*` patterns of `checkpoints.tools`.
 */
export function writing_tool_test(config: AgentConfig): (tool: string) => boolean {
  const patterns = config.checkpoints.tools.map(glob_regex);
  const prefixes = Object.entries(config.mcp_servers)
    .filter(([, server]) => server.writes === true)
    // as `@lich/mcp` names them: the server's name made safe, then the tool's
    .map(([name]) => `mcp_${name.replace(/[^a-zA-Z0-9_-]/g, '_')}_`);
  return (tool) =>
    WRITING_TOOLS.has(tool) ||
    prefixes.some((prefix) => tool.startsWith(prefix)) ||
    patterns.some((pattern) => pattern.test(tool));
}

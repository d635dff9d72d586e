/** Claude Code's tool names and the Lich tools they stand for. */
export const CLAUDE_TOOL_NAMES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Bash: ['terminal', 'run_tests'],
  Edit: ['edit_file'],
  MultiEdit: ['edit_file'],
  Write: ['write_file'],
  Read: ['read_file'],
  Grep: ['grep'],
  Glob: ['glob'],
  LS: ['list_dir'],
  WebFetch: ['web_fetch'],
});

/** Lich's tool name → the Claude Code name a hook's `tool_name` and matchers use. */
export function claude_tool_name(tool: string): string {
  for (const [claude, lich] of Object.entries(CLAUDE_TOOL_NAMES)) {
    if (claude !== 'MultiEdit' && lich.includes(tool)) return claude;
  }
  return tool;
}

/**
 * One `allowed-tools` entry of a skill or command (`Bash(git diff:*)`, `Read`, `terminal(ls *)`)
 * as Lich permission rules: Claude's names become Lich's, and Claude's `prefix:*` becomes the
 * glob `prefix*`. An entry of an unknown tool is kept as written. Pure.
 */
export function lich_permission_rules(entry: string): string[] {
  const match = /^([A-Za-z0-9_*?-]+)(?:\((.*)\))?$/s.exec(entry.trim());
  if (match === null) return [];
  const tool = match[1] as string;
  const pattern = match[2]?.trim();
  const lich_pattern = pattern?.replace(/:\*$/, '*');
  const tools = CLAUDE_TOOL_NAMES[tool] ?? [tool];
  return tools.map((name) => (lich_pattern === undefined ? name : `${name}(${lich_pattern})`));
}

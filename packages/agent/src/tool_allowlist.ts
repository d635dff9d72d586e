/**
 * Whether `name` is allowed by `tools_enabled`: absent allows everything; otherwise a name must
 * equal an entry or match one with `*` standing for any run of characters (`mcp_github_*`).
 * Pure; never throws.
 */
export function tool_allowed(name: string, tools_enabled: readonly string[] | undefined): boolean {
  if (tools_enabled === undefined) return true;
  return tools_enabled.some((pattern) => {
    if (!pattern.includes('*')) return pattern === name;
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    return new RegExp(`^${source}$`).test(name);
  });
}

/**
 * Which tools of which servers are wanted: a server's `tools_include` / `tools_exclude` (over the
 * server's own tool names) and the agent's `tools_enabled` (over registered names).
 * Patterns are exact names, where `*` matches any run of characters.
 */

function pattern_to_regex(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** True when `name` matches one of `patterns`. Never throws. */
export function matches_any(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.includes('*') ? pattern_to_regex(pattern).test(name) : pattern === name,
  );
}

/**
 * True when a server's tool passes its `tools_include` (absent: every tool) and is not in its
 * `tools_exclude`. Exclusion wins.
 */
export function tool_wanted(
  tool: string,
  filter: { tools_include?: readonly string[]; tools_exclude?: readonly string[] },
): boolean {
  if (filter.tools_exclude !== undefined && matches_any(tool, filter.tools_exclude)) return false;
  return filter.tools_include === undefined || matches_any(tool, filter.tools_include);
}

/**
 * True when some entry of `tools_enabled` could name a tool registered under `prefix`
 * (`mcp_<server>_`): an exact name starting with it, or a pattern that can match such a name.
 * Used to leave unconnected a server none of whose tools could be enabled.
 */
export function prefix_could_be_enabled(prefix: string, tools_enabled: readonly string[]): boolean {
  return tools_enabled.some((entry) => {
    if (!entry.includes('*')) return entry.startsWith(prefix);
    // the pattern can match a name with this prefix when its literal start agrees with it
    const literal = entry.slice(0, entry.indexOf('*'));
    return literal.startsWith(prefix) || prefix.startsWith(literal);
  });
}

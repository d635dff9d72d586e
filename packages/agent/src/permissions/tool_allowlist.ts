import { nearest_word } from '@lich/tools';

/** Whether `name` matches `pattern`, where `*` stands for any run of characters. Pure. */
export function tool_pattern_matches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

/**
 * Whether `name` is allowed by `tools_enabled` and not taken away by `tools_disabled`: an absent
 * `tools_enabled` allows everything; otherwise a name must equal an entry or match one with `*`
 * standing for any run of characters (`mcp_github_*`). `tools_disabled` uses the same patterns
 * and wins. Pure; never throws.
 */
export function tool_allowed(
  name: string,
  tools_enabled: readonly string[] | undefined,
  tools_disabled: readonly string[] = [],
): boolean {
  if (tools_disabled.some((pattern) => tool_pattern_matches(pattern, name))) return false;
  if (tools_enabled === undefined) return true;
  return tools_enabled.some((pattern) => tool_pattern_matches(pattern, name));
}

/**
 * Warnings for patterns of `tools_enabled` (and `tools_disabled`) that match none of `names`, the
 * tools that exist: a typo there would otherwise silently take every tool away. Each names the
 * nearest tool when one is close. Pure; never throws.
 */
export function unmatched_tool_patterns(
  names: readonly string[],
  lists: { tools_enabled?: readonly string[]; tools_disabled?: readonly string[] },
): string[] {
  const warnings: string[] = [];
  for (const key of ['tools_enabled', 'tools_disabled'] as const) {
    for (const pattern of lists[key] ?? []) {
      if (names.some((name) => tool_pattern_matches(pattern, name))) continue;
      const near = pattern.includes('*') ? undefined : nearest_word(pattern, names);
      warnings.push(
        `${key}: '${pattern}' matches no tool${near ? ` (did you mean '${near}'?)` : ''}`,
      );
    }
  }
  const enabled = lists.tools_enabled;
  if (
    enabled !== undefined &&
    enabled.length > 0 &&
    !names.some((name) => tool_allowed(name, enabled, lists.tools_disabled))
  ) {
    warnings.push('tools_enabled allows none of the tools: the model works without tools');
  }
  return warnings;
}

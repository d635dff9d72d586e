import { z } from 'zod';
import { parse_rule } from './permission_rules.js';

const RULES = z
  .array(z.string().min(1))
  .default([])
  .superRefine((rules, context) => {
    rules.forEach((rule, index) => {
      try {
        parse_rule(rule);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: error instanceof Error ? error.message : String(error),
        });
      }
    });
  });

/** The `permissions` key: the approval mode and allow / ask / deny rules. */
export const PERMISSIONS_SCHEMA = z
  .object({
    mode: z
      .enum(['default', 'auto_edit', 'plan', 'yolo'])
      .optional()
      .describe(
        'default: reads run, edits and commands ask; auto_edit: edits run too; plan: only reads run until the user approves a plan (exit_plan_mode); yolo: everything runs (deny rules, the hardline list and the path guard still apply). Absent: lich asks on a terminal and runs everything off one; lich serve, acp and the TUI use default.',
      ),
    allow: RULES.describe(
      'Calls that run without asking: a tool name, or tool(pattern) as in terminal(git status*), write_file(docs/**).',
    ),
    ask: RULES.describe('Calls that always ask (unless yolo), even when an allow rule matches.'),
    deny: RULES.describe('Calls that never run, in every mode.'),
  })
  .describe('Which tool calls run, ask first, or never run.');

/** The `permissions` key of the config, as parsed (defaults applied). */
export type PermissionsSettings = z.infer<typeof PERMISSIONS_SCHEMA>;

/** The permissions when the config sets none. */
export const DEFAULT_PERMISSIONS = { allow: [], ask: [], deny: [] } as const;

/**
 * Merges a later layer's permissions into an earlier one's: the later `mode` wins, the rule lists
 * add up (a project file adds rules to the user's). Pure.
 */
export function merge_permissions(earlier: unknown, later: unknown): unknown {
  if (typeof earlier !== 'object' || earlier === null) return later;
  if (typeof later !== 'object' || later === null) return later;
  const a = earlier as Record<string, unknown>;
  const b = later as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...a, ...b };
  for (const key of ['allow', 'ask', 'deny']) {
    if (Array.isArray(a[key]) && Array.isArray(b[key])) {
      merged[key] = [...new Set([...(a[key] as unknown[]), ...(b[key] as unknown[])])];
    }
  }
  return merged;
}

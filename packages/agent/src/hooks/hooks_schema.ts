import { z } from 'zod';

/** The hook events Lich runs, with Claude Code's names. */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SessionStart',
  'SessionEnd',
  'PreCompact',
  'Notification',
] as const;

/** One hook event's name. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** One command a hook runs: Claude Code's `{ type: "command", command, timeout }`. */
export const HOOK_COMMAND_SCHEMA = z
  .object({
    type: z.literal('command').describe('Only "command" hooks are run.'),
    command: z
      .string()
      .min(1)
      .describe(
        'A bash command line; the event arrives as JSON on stdin. $CLAUDE_PROJECT_DIR is the work dir.',
      ),
    timeout: z
      .number()
      .positive()
      .optional()
      .describe('Seconds before it is stopped (default 60).'),
  })
  .describe('A command run on the event.');

/** Commands run for the tool names `matcher` matches. */
export const HOOK_GROUP_SCHEMA = z
  .object({
    matcher: z
      .string()
      .optional()
      .describe(
        "Tool names (a regular expression, * or empty for all): Claude Code's Bash, Edit, Write, Read, Grep, Glob or Lich's own names.",
      ),
    hooks: z.array(HOOK_COMMAND_SCHEMA).describe('The commands, run in order.'),
  })
  .describe('A matcher and its commands.');

const GROUPS = z.array(HOOK_GROUP_SCHEMA).optional();

/** The `hooks` key: Claude Code's schema, plus `import`. */
export const HOOKS_SCHEMA = z
  .object({
    import: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Hook files of other harnesses to run as well: claude (.claude/settings.json), codex (.codex/hooks.json), or a path (~/ allowed).',
      ),
    PreToolUse: GROUPS.describe(
      'Before a tool call; exit code 2 blocks it, stderr telling the model why.',
    ),
    PostToolUse: GROUPS.describe('After a tool call; may add context for the model.'),
    UserPromptSubmit: GROUPS.describe(
      'Before a prompt goes to the model; may add context or block it.',
    ),
    Stop: GROUPS.describe(
      'When the model is done; may ask it to go on ({"decision":"block","reason":…}).',
    ),
    SessionStart: GROUPS.describe("At a conversation's first prompt; may add context."),
    SessionEnd: GROUPS.describe('When the agent closes.'),
    PreCompact: GROUPS.describe('Before the history is summarised.'),
    Notification: GROUPS.describe('When Lich waits for a person (a permission question).'),
  })
  .describe(
    "Commands run on agent events, in Claude Code's format (trusted folders only for a project's).",
  );

/** The `hooks` key as parsed. */
export type HooksSettings = z.infer<typeof HOOKS_SCHEMA>;

/** One hook group as parsed. */
export type HookGroup = z.infer<typeof HOOK_GROUP_SCHEMA>;

/**
 * Hooks from one place, and whether they came from the person (`user`: their config, code) or
 * from the repository (`project`: its config file, its `.claude/settings.json`), which runs only
 * in a trusted folder.
 */
export interface HookSet {
  origin: 'user' | 'project';
  /** Where they were read: a file path, or `config`. */
  source: string;
  settings: HooksSettings;
}

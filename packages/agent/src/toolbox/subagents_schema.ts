import { z } from 'zod';

/** The `subagents` key: how many children the `task` tool may run, and how deep. */
export const SUBAGENTS_SCHEMA = z
  .object({
    max_concurrent: z
      .int()
      .min(1)
      .default(3)
      .describe('Subagents of one run working at once; more wait for a free slot.'),
    max_depth: z
      .int()
      .min(1)
      .default(1)
      .describe('How deep subagents nest: 1 means children never start grandchildren.'),
    max_per_run: z
      .int()
      .min(1)
      .default(12)
      .describe('Subagents one run may start in all, against runaway delegation.'),
    import_claude_agents: z
      .boolean()
      .default(false)
      .describe('Also read subagent types from .claude/agents/*.md (after .lich/agents/*.md).'),
  })
  .describe('Subagents the task tool runs: child sessions with a fresh context.');

/** The `subagents` settings. */
export type SubagentsSettings = z.output<typeof SUBAGENTS_SCHEMA>;

/** The `subagents` key's default. */
export const DEFAULT_SUBAGENTS: Readonly<SubagentsSettings> = Object.freeze({
  max_concurrent: 3,
  max_depth: 1,
  max_per_run: 12,
  import_claude_agents: false,
});

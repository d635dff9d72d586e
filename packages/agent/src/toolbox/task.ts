import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { SUBAGENT_FIELD, type SubagentRunner, TASK_TOOL } from './subagent_runner.js';

const parameters = z
  .object({
    description: z.string().min(1).describe('A few words saying what the job is, for the user.'),
    prompt: z
      .string()
      .min(1)
      .describe(
        'The whole job, self-contained: the subagent sees nothing of this conversation. Say what to do and what to report.',
      ),
    subagent_type: z
      .string()
      .min(1)
      .optional()
      .describe('The kind of subagent (a name from .lich/agents); default general.'),
  })
  .strict();

/** Arguments of `task`. */
export type TaskArgs = z.infer<typeof parameters>;

/**
 * `task { description, prompt, subagent_type? }`: hands a self-contained job to a subagent, a
 * child session with a fresh context; only its final answer comes back. Several calls in one turn
 * run in parallel (up to `subagents.max_concurrent`), their results in call order.
 *
 * Contract: never throws; without a runner in its context (a call outside an Agent run) it says
 * subagents are not available.
 */
export const task_tool: Tool<TaskArgs> = {
  name: TASK_TOOL,
  description:
    'Hand a self-contained job to a subagent with a fresh context (a search across many files, ' +
    'research, an independent change) and get back only its final report. Give it everything it ' +
    'needs in prompt. Start several in one turn to work in parallel.',
  parameters,
  // a child works as long as it needs; the parent's abort ends it
  timeout_ms: 3_600_000,
  async execute(args, context): Promise<ToolOutput> {
    const runner = context[SUBAGENT_FIELD] as SubagentRunner | undefined;
    if (runner === undefined || typeof runner.run !== 'function') {
      return { ok: false, output: 'Subagents are not available here.' };
    }
    return runner.run(args, context);
  },
};

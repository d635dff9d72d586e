import type { Tool, ToolOutput, ToolPreview } from '@lich/core';
import { z } from 'zod';

/** The name of the tool that ends plan mode with a plan the user approves. */
export const EXIT_PLAN_TOOL = 'exit_plan_mode';

/**
 * The field of a tool call's context holding the session's approval mode now (a function), so
 * `exit_plan_mode` can say which mode the approval moved the session to.
 */
export const APPROVAL_MODE_FIELD = 'approval_mode';

const parameters = z
  .object({
    plan: z
      .string()
      .min(1)
      .describe('The plan, in markdown: the steps, the files to change, how to check the result.'),
  })
  .strict();

/** Arguments of `exit_plan_mode`. */
export type ExitPlanModeArgs = z.infer<typeof parameters>;

/**
 * `exit_plan_mode { plan }`: in plan mode, shows the plan to the user, who approves it (the
 * session moves to `default`, or `auto_edit` with "allow always") or answers with changes (the
 * model gets their words and stays in plan mode). The asking is the permission gate's, so every
 * surface shows it as it shows any question (the plan as the preview); this tool only reports.
 *
 * Contract: never throws; outside plan mode it says no approval is needed.
 */
export const exit_plan_mode_tool: Tool<ExitPlanModeArgs> = {
  name: EXIT_PLAN_TOOL,
  description:
    'In plan mode (only read-only tools run), present your plan to the user when it is ready. ' +
    'They approve it (edits and commands are then allowed as usual) or answer with changes (revise ' +
    'the plan and call this again). Outside plan mode it is not needed.',
  parameters,
  async execute(_args, context): Promise<ToolOutput> {
    const read = context[APPROVAL_MODE_FIELD];
    const mode = typeof read === 'function' ? String((read as () => unknown)()) : undefined;
    if (mode === 'plan') {
      return 'The plan was noted, but the session is still in plan mode: wait for the user.';
    }
    return `The user approved the plan; the approval mode is now ${mode ?? 'default'}. Carry out the plan now, step by step.`;
  },
  async preview(args): Promise<ToolPreview> {
    return { kind: 'text', text: args.plan, summary: 'the plan to approve' };
  },
};

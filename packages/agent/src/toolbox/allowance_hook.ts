import type { ToolHooks } from '@lich/tools';

/** The field of a tool call's context holding the names a run may call (a subagent's). */
export const ALLOWED_TOOLS_FIELD = 'allowed_tools';

/**
 * The executor hook that refuses a call of a tool the run was not given (`allowed_tools`): a
 * subagent calls only the tools of its type, whatever the model asks. Runs before the permission
 * hook, so such a call asks nobody.
 */
export const ALLOWANCE_HOOK: ToolHooks = {
  async before_tool_call(name, _args, context) {
    const allowed = context[ALLOWED_TOOLS_FIELD];
    if (!(allowed instanceof Set) || allowed.has(name)) return undefined;
    return {
      block: `${name} is not among the tools of this subagent (${[...allowed].join(', ') || 'none'}).`,
      summary: 'not allowed to this subagent',
    };
  },
};

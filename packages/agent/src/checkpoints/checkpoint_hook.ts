import type { ToolHooks } from '@lich/tools';
import type { RunCheckpoints } from './run_checkpoints.js';

/** The field of a tool call's context the checkpoint hook reads the run's checkpoints from. */
export const CHECKPOINTS_FIELD = 'checkpoints';

/**
 * The executor hook that takes a run's checkpoint before its first change: a call of a tool that
 * writes waits for the checkpoint (taken once per run), then runs. It runs after the permission
 * hook, so a call that may not run takes no checkpoint. A call with no checkpoints in its context
 * (checkpoints off, a tool called outside a run) runs at once. Never blocks a call.
 */
export const CHECKPOINT_HOOK: ToolHooks = {
  before_tool_call(name, _args, context) {
    const checkpoints = context[CHECKPOINTS_FIELD] as RunCheckpoints | undefined;
    if (checkpoints === undefined || typeof checkpoints.writes !== 'function') return undefined;
    if (!checkpoints.writes(name)) return undefined;
    return checkpoints.before_change().then(() => undefined);
  },
};

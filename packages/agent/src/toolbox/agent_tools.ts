import type { Tool } from '@lich/core';
import { exit_plan_mode_tool } from './exit_plan_mode.js';
import { task_tool } from './task.js';
import { todo_write_tool } from './todo_write.js';

/**
 * The tools the agent itself adds after the builtins, in the order the model is offered them:
 * they need a session (its task list, its approval mode, child sessions), so they live here and
 * not in `@lich/tools`. `tools_enabled` and `tools_disabled` filter them like any other.
 */
export const AGENT_TOOLS: readonly Tool<unknown>[] = [
  todo_write_tool,
  exit_plan_mode_tool,
  task_tool,
] as readonly Tool<unknown>[];

/** The names of `AGENT_TOOLS`, in the same order. */
export const AGENT_TOOL_NAMES: readonly string[] = AGENT_TOOLS.map((tool) => tool.name);

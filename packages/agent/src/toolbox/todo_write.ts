import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { read_todos, render_todos, TODO_STATUSES, TODO_TOOL, type TodoItem } from './todo_list.js';

const parameters = z
  .object({
    todos: z
      .array(
        z
          .object({
            content: z.string().min(1).describe('What to do, as one short imperative line.'),
            status: z.enum(TODO_STATUSES as [TodoItem['status'], ...TodoItem['status'][]]),
          })
          .strict(),
      )
      .describe('The whole list, in order; it replaces the previous one.'),
  })
  .strict();

/** Arguments of `todo_write`. */
export type TodoWriteArgs = z.infer<typeof parameters>;

/**
 * `todo_write { todos: [{ content, status }] }`: the session's task list, written whole each time.
 *
 * Contract: refuses a list with more than one item `in_progress` (the model is told to finish
 * one first); otherwise answers with the checklist. The list lives in the session's history (the
 * call's arguments), so it is persisted with the session, read back by `todos_from_history`, and
 * carried over compression by `carry_todos`. It touches nothing outside the session.
 */
export const todo_write_tool: Tool<TodoWriteArgs> = {
  name: TODO_TOOL,
  description:
    'Keep a task list for work of three or more steps: write the whole list each time (items with ' +
    'content and status pending, in_progress or completed; at most one in_progress). Mark an item ' +
    'in_progress before starting it and completed as soon as it is done. The user sees the list.',
  parameters,
  async execute(args): Promise<ToolOutput> {
    const read = read_todos(args);
    if ('error' in read)
      return { ok: false, output: `The task list was not changed: ${read.error}.` };
    if (read.items.length === 0) return 'The task list is now empty.';
    const done = read.items.filter((item) => item.status === 'completed').length;
    return `Task list updated (${done} of ${read.items.length} done):\n${render_todos(read.items)}`;
  },
};

import type { Message } from '@lich/core';

/** Where an item of the task list stands. */
export type TodoStatus = 'pending' | 'in_progress' | 'completed';

/** Every `TodoStatus`, in the order work moves through them. */
export const TODO_STATUSES: readonly TodoStatus[] = ['pending', 'in_progress', 'completed'];

/** One item of the task list. */
export interface TodoItem {
  content: string;
  status: TodoStatus;
}

/** The name of the tool that writes the task list. */
export const TODO_TOOL = 'todo_write';

const MARK: Readonly<Record<TodoStatus, string>> = {
  pending: '[ ]',
  in_progress: '[>]',
  completed: '[x]',
};
const BLOCK = /<task_list>\n([\s\S]*?)\n?<\/task_list>/g;
const LINE = /^\[( |>|x)\] (.+)$/;

/**
 * Reads the items of a `todo_write` call: `{ todos: [{ content, status }] }`. Content is flattened
 * to one line.
 *
 * Contract: pure, never throws; the items, or a message saying what is wrong (no list, an item
 * without content, an unknown status, more than one item in progress).
 */
export function read_todos(args: unknown): { items: TodoItem[] } | { error: string } {
  const list = (args as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(list)) return { error: 'todos must be a list of { content, status }' };
  const items: TodoItem[] = [];
  for (const [index, raw] of list.entries()) {
    const fields = (raw ?? {}) as { content?: unknown; status?: unknown };
    const content =
      typeof fields.content === 'string' ? fields.content.replace(/\s+/g, ' ').trim() : '';
    if (content === '') return { error: `item ${index + 1} has no content` };
    if (!TODO_STATUSES.includes(fields.status as TodoStatus)) {
      return {
        error: `item ${index + 1} has status '${String(fields.status)}'; use pending, in_progress or completed`,
      };
    }
    items.push({ content, status: fields.status as TodoStatus });
  }
  const active = items.filter((item) => item.status === 'in_progress').length;
  if (active > 1) {
    return { error: `${active} items are in_progress; at most one may be (finish one first)` };
  }
  return { items };
}

/** The list as a checklist: `[x] done`, `[>] doing`, `[ ] to do`, one line each. */
export function render_todos(items: readonly TodoItem[]): string {
  return items.map((item) => `${MARK[item.status]} ${item.content}`).join('\n');
}

/** The block a compression summary carries the list in; undefined for an empty list. */
export function todo_block(items: readonly TodoItem[]): string | undefined {
  if (items.length === 0) return undefined;
  return `The task list (todo_write) as it stood:\n<task_list>\n${render_todos(items)}\n</task_list>`;
}

function from_block(text: string): TodoItem[] | undefined {
  let found: TodoItem[] | undefined;
  for (const match of text.matchAll(BLOCK)) {
    const items: TodoItem[] = [];
    for (const line of (match[1] ?? '').split('\n')) {
      const parsed = LINE.exec(line.trim());
      if (parsed === null) continue;
      const mark = parsed[1];
      const status: TodoStatus =
        mark === 'x' ? 'completed' : mark === '>' ? 'in_progress' : 'pending';
      items.push({ content: parsed[2] as string, status });
    }
    found = items;
  }
  return found;
}

/**
 * The task list as the history leaves it: the items of the last valid `todo_write` call whose
 * result came back without an error, or of
 * the last `<task_list>` block a compression summary carried, whichever comes later; undefined
 * when the model never wrote one. A session file holds both, so a resumed session has its list.
 *
 * Contract: pure, never throws.
 */
export function todos_from_history(messages: readonly Message[]): TodoItem[] | undefined {
  let latest: TodoItem[] | undefined;
  // a call counts once its result came back without an error
  const calls = new Map<string, TodoItem[]>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        if (call.name !== TODO_TOOL) continue;
        let args: unknown;
        try {
          args = JSON.parse(call.arguments);
        } catch {
          continue;
        }
        const read = read_todos(args);
        if ('items' in read) calls.set(call.id, read.items);
      }
    } else if (message.role === 'tool') {
      const items = calls.get(message.tool_call_id);
      if (items !== undefined && message.is_error !== true) latest = items;
    } else if (message.role === 'user' && typeof message.content === 'string') {
      const carried = from_block(message.content);
      if (carried !== undefined) latest = carried;
    }
  }
  return latest;
}

/**
 * What a compression carries of the task list (`CompressOptions.carry`): the current list as a
 * block, or nothing when there is none or it is empty.
 */
export function carry_todos(messages: readonly Message[]): string | undefined {
  const items = todos_from_history(messages);
  return items === undefined ? undefined : todo_block(items);
}

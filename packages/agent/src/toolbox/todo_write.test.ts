import type { Message, ToolRunContext } from '@lich/core';
import { content_text } from '@lich/core';
import { read_session_messages } from '@lich/session';
import { fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent.js';
import { make_config } from '../config/config_load.js';
import { carry_todos, read_todos, todos_from_history } from './todo_list.js';
import { todo_write_tool } from './todo_write.js';

const ITEMS = [
  { content: 'read the code', status: 'completed' as const },
  { content: 'write the fix', status: 'in_progress' as const },
  { content: 'run the tests', status: 'pending' as const },
];

let temp: TempDir;

beforeEach(async () => {
  temp = await make_temp_dir({
    prefix: 'lich-todo-',
    files: {
      'small.txt': 'small\n',
      'big.txt': `${'a long line of text to fill the window\n'.repeat(500)}`,
    },
  });
});

afterEach(async () => {
  await temp.cleanup();
});

function context(): ToolRunContext {
  return { work_dir: temp.path, signal: new AbortController().signal };
}

describe('todo_write', () => {
  it('answers with the checklist, and refuses two items in progress', async () => {
    expect(await todo_write_tool.execute({ todos: ITEMS }, context())).toBe(
      'Task list updated (1 of 3 done):\n[x] read the code\n[>] write the fix\n[ ] run the tests',
    );
    const two = await todo_write_tool.execute(
      {
        todos: [
          { content: 'a', status: 'in_progress' },
          { content: 'b', status: 'in_progress' },
        ],
      },
      context(),
    );
    expect(two).toMatchObject({ ok: false });
    expect(JSON.stringify(two)).toContain('at most one may be');
    expect(read_todos({ todos: [{ content: 'x', status: 'doing' }] })).toEqual({
      error: "item 1 has status 'doing'; use pending, in_progress or completed",
    });
  });

  it('reads the list from the history: the last call that went through, or a carried block', () => {
    const history: Message[] = [
      { role: 'user', content: 'fix it' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', name: 'todo_write', arguments: JSON.stringify({ todos: ITEMS }) }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c2', name: 'todo_write', arguments: JSON.stringify({ todos: [] }) }],
      },
      { role: 'tool', tool_call_id: 'c2', content: 'refused', is_error: true },
    ];
    expect(todos_from_history(history)).toEqual(ITEMS);
    const carried = carry_todos(history);
    expect(carried).toContain('<task_list>');
    expect(todos_from_history([{ role: 'user', content: `Summary: …\n\n${carried}` }])).toEqual(
      ITEMS,
    );
    expect(todos_from_history([{ role: 'user', content: 'hello' }])).toBeUndefined();
  });

  it('survives compaction: the summary carries the list to the model and into the session file', async () => {
    const chat = fake_chat([
      { tool_calls: [{ name: 'todo_write', arguments: { todos: ITEMS } }] },
      { tool_calls: [{ name: 'read_file', arguments: { path: 'small.txt' } }] },
      { tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
      { text: 'We read two files after planning.' },
      { text: 'Done.' },
    ]);
    const config = make_config({
      work_dir: temp.path,
      context_window: 4_000,
      compression: { keep_recent: 2 },
    });
    const agent = new Agent({ config, chat, lich_version: '9.9.9' });
    const result = await agent.run({ input: 'fix the bug' });
    expect(result.outcome.final).toBe('Done.');
    // the summary call, then the next model call sees the list again
    const last = chat.calls.at(-1)?.messages ?? [];
    const names = last.flatMap((message) =>
      message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.name) : [],
    );
    expect(names).not.toContain('todo_write');
    const summary = last.find(
      (message) => message.role === 'user' && content_text(message.content).includes('<task_list>'),
    );
    expect(summary?.content).toContain('[>] write the fix');
    expect(todos_from_history(last)).toEqual(ITEMS);
    // a resumed session finds it too
    const resumed = await read_session_messages(result.session_path as string);
    expect(todos_from_history(resumed)).toEqual(ITEMS);
    // `/compact` carries it as well
    const long: Message[] = [
      { role: 'user', content: 'fix the bug' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', name: 'todo_write', arguments: JSON.stringify({ todos: ITEMS }) }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ...Array.from(
        { length: 10 },
        (_, index): Message => ({
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: `turn ${index}`,
        }),
      ),
    ];
    const compacted = await new Agent({
      config,
      chat: fake_chat([{ text: 'short summary' }]),
      lich_version: '9.9.9',
    }).compact(long);
    expect(compacted.ok).toBe(true);
    expect(compacted.messages.some((message) => message.role === 'tool')).toBe(false);
    expect(todos_from_history(compacted.messages)).toEqual(ITEMS);
    await agent.close();
  });
});

/**
 * The task list in the TUI, in a real terminal (tmux): a `todo_write` call shows a live checklist
 * under the turn while any item is open.
 */
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'owls\n' });

describe.skipIf(TMUX.skip)(`the task list in lich tui${TMUX.reason}`, () => {
  it('shows todo_write as a checklist that follows each update', async () => {
    const terminal = new TmuxTerminal();
    try {
      const todos = (reading: string) => [
        { content: 'read the notes', status: reading },
        {
          content: 'answer the question',
          status: reading === 'completed' ? 'in_progress' : 'pending',
        },
      ];
      server.enqueue(
        { tool_calls: [{ name: 'todo_write', arguments: { todos: todos('in_progress') } }] },
        {
          delay_ms: 1_500,
          tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        },
        {
          delay_ms: 1_500,
          tool_calls: [{ name: 'todo_write', arguments: { todos: todos('completed') } }],
        },
        { delay_ms: 1_500, text: 'The notes say owls.' },
      );
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, {
        bin: BIN,
        env,
        args: [],
        cwd: sandbox.work_dir,
        rows: 40,
      });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('what do the notes say?');
      await terminal.keys('Enter');
      const first = await terminal.wait_for((text) => text.includes('Tasks 0/2'), 'the list');
      expect(first).toContain('▸ read the notes');
      expect(first).toContain('○ answer the question');
      const second = await terminal.wait_for((text) => text.includes('Tasks 1/2'), 'the update');
      expect(second).toContain('✔ read the notes');
      expect(second).toContain('▸ answer the question');
      await terminal.wait_for((text) => text.includes('The notes say owls.'), 'the answer');
    } finally {
      await terminal.kill();
    }
  }, 90_000);
});

/**
 * Plan mode in the TUI, in a real terminal (tmux): a write is refused while the session plans,
 * the plan is shown for approval, and once approved the session moves on and the write runs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'before\n' });

describe.skipIf(TMUX.skip)(`plan mode in lich tui${TMUX.reason}`, () => {
  it('refuses the write until the plan is approved, then runs it', async () => {
    const terminal = new TmuxTerminal();
    try {
      const write = { name: 'write_file', arguments: { path: 'notes.txt', content: 'after\n' } };
      server.enqueue(
        { tool_calls: [write] },
        {
          tool_calls: [
            { name: 'exit_plan_mode', arguments: { plan: 'Step one: rewrite notes.txt' } },
          ],
        },
        { tool_calls: [write] },
        { text: 'Rewritten.' },
      );
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, {
        bin: BIN,
        env,
        args: ['tui', '--approval-mode', 'plan'],
        cwd: sandbox.work_dir,
        rows: 40,
      });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('rewrite the notes');
      await terminal.keys('Enter');
      const question = await terminal.wait_for(
        (text) =>
          text.includes('Approve this plan?') && text.includes('1 approve') && !text.includes('⧗'),
        'the plan',
      );
      expect(question).toContain('Step one: rewrite notes.txt');
      expect(question).toContain('refused in plan mode');
      expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('before\n');
      await terminal.type('1');
      // default mode now: the write asks
      await terminal.wait_for(
        (text) =>
          text.includes('Allow write_file: notes.txt?') &&
          text.includes('1 allow once') &&
          !text.includes('⧗'),
        'the write question',
      );
      await terminal.type('1');
      await terminal.wait_for((text) => text.includes('Rewritten.'), 'the answer');
      expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('after\n');
    } finally {
      await terminal.kill();
    }
  }, 90_000);
});

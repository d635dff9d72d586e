/**
 * Subagents in the TUI, in a real terminal (tmux): a `task` call's child is a nested block under
 * the call, folded to one line with its current tool call and tool count; Ctrl+O unfolds it
 * while it runs, and once it has finished prints its calls and report in full.
 */
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'owls\n' });

/** The line of the pane holding `needle` (the last one), or ''. */
function line_with(text: string, needle: string): string {
  return (
    text
      .split('\n')
      .findLast((line) => line.includes(needle))
      ?.trim() ?? ''
  );
}

describe.skipIf(TMUX.skip)(`subagents in lich tui${TMUX.reason}`, () => {
  it('shows a child folded under its task call, unfolded by Ctrl+O while it runs and after', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue(
        // the parent hands the job to a child
        {
          tool_calls: [
            {
              name: 'task',
              arguments: { description: 'find the owls', prompt: 'job: read notes.txt' },
            },
          ],
        },
        // the child reads a file, then thinks a while before it answers
        { delay_ms: 500, tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { delay_ms: 6_000, text: 'The notes say owls.' },
        // the parent answers from the child's report
        { text: 'All done: owls.' },
      );
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, { bin: BIN, env, args: [], cwd: sandbox.work_dir, rows: 40 });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('what do the notes say?');
      await terminal.keys('Enter');

      // running, folded: one line under the task call, with what it did last and its count
      const running = await terminal.wait_for(
        (text) => line_with(text, '⎿ general: find the owls').includes('1 tool'),
        'the running child folded',
      );
      expect(running).toContain('task: find the owls');
      const folded = line_with(running, '⎿ general: find the owls');
      expect(folded).toMatch(/· (read_file notes\.txt|thinking) · 1 tool · [\d.]+m?s · Ctrl\+O$/);
      expect(running).not.toContain('→ read_file notes.txt');

      // Ctrl+O while it runs: its calls below its line, in place
      await terminal.keys('C-o');
      const unfolded = await terminal.wait_for(
        (text) => text.includes('→ read_file notes.txt'),
        'the running child unfolded',
      );
      expect(line_with(unfolded, '⎿ general: find the owls')).not.toContain('Ctrl+O');

      // finished: the task block keeps the child folded to one line, its outcome said
      const done = await terminal.wait_for(
        (text) => text.includes('All done: owls.'),
        'the parent answer',
        30_000,
      );
      const finished = line_with(done, '⎿ general: find the owls');
      expect(finished).toMatch(/· done · 1 tool · [\d.]+s · Ctrl\+O$/);
      expect(done.split('\n').filter((line) => line.includes('→ read_file notes.txt'))).toEqual([]);

      // Ctrl+O after it finished: the child in full, its calls and its report
      await terminal.keys('C-o');
      const expanded = await terminal.wait_for(
        (text) => text.includes('subagent general: find the owls'),
        'the child printed in full',
      );
      const after = expanded.slice(expanded.lastIndexOf('subagent general: find the owls'));
      expect(after).toContain('general: find the owls — done · 1 tool');
      expect(after).toContain('→ read_file notes.txt');
      expect(after).toContain('The notes say owls.');
    } finally {
      await terminal.kill();
    }
  }, 90_000);

  it('gives children working in parallel a block each', async () => {
    const terminal = new TmuxTerminal();
    try {
      const job = (description: string) => ({
        name: 'task',
        arguments: { description, prompt: `job: ${description}` },
      });
      const read = { name: 'read_file', arguments: { path: 'notes.txt' } };
      server.enqueue(
        { tool_calls: [job('north wing'), job('south wing')] },
        // both children read at once, then answer a few seconds later
        { delay_ms: 300, tool_calls: [read] },
        { delay_ms: 300, tool_calls: [read] },
        { delay_ms: 4_000, text: 'Owls here.' },
        { delay_ms: 4_000, text: 'Owls here.' },
        { text: 'Owls in both wings.' },
      );
      const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
      await start_lich(terminal, { bin: BIN, env, args: [], cwd: sandbox.work_dir, rows: 40 });
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('where are the owls?');
      await terminal.keys('Enter');
      const both = await terminal.wait_for(
        (text) =>
          line_with(text, '⎿ general: north wing').includes('1 tool') &&
          line_with(text, '⎿ general: south wing').includes('1 tool'),
        'both children running, each on its own line',
      );
      expect(both.split('\n').filter((line) => line.includes('⎿ general:'))).toHaveLength(2);
      const done = await terminal.wait_for(
        (text) => text.includes('Owls in both wings.'),
        'the parent answer',
        30_000,
      );
      for (const wing of ['north wing', 'south wing']) {
        expect(line_with(done, `⎿ general: ${wing}`)).toMatch(/· done · 1 tool · /);
      }
      await terminal.keys('C-o');
      const expanded = await terminal.wait_for(
        (text) => text.includes('2 subagents'),
        'both children printed in full',
      );
      const after = expanded.slice(expanded.lastIndexOf('2 subagents'));
      expect(after).toContain('general: north wing — done · 1 tool');
      expect(after).toContain('general: south wing — done · 1 tool');
    } finally {
      await terminal.kill();
    }
  }, 90_000);
});

/**
 * The TUI as a new user starts it, in a real terminal (tmux): with a task (C32), through
 * `lich sessions resume` (C33), and with a session that does not exist (C12); its help (C34).
 */
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  BIN,
  openai_env,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made));

/** Starts `lich args` in tmux; resolves with the file its exit code goes to. */
async function start(terminal: TmuxTerminal, args: readonly string[]): Promise<string> {
  const code_file = join(sandbox.temp.path, 'exit_code');
  const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
  await start_lich(terminal, {
    bin: BIN,
    env,
    args,
    cwd: sandbox.work_dir,
    code_file,
    columns: 100,
    rows: 30,
  });
  return code_file;
}

describe('lich tui --help', () => {
  it('does not offer --show-reasoning, which means nothing there (C34)', async () => {
    const help = await run_lich(['tui', '--help'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(help.code).toBe(0);
    expect(help.stdout).not.toContain('--show-reasoning');
    expect(help.stdout).toContain('lich tui [options] ["task"]');
  });
});

describe.skipIf(TMUX.skip)(`the TUI started as a new user does${TMUX.reason}`, () => {
  it('lich tui "task" opens and runs the task (C32)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'Task done at once.' });
      const code_file = await start(terminal, ['tui', 'do the thing']);
      await terminal.wait_for((text) => text.includes('Task done at once.'), 'the answer');
      expect(JSON.stringify(server.requests[0]?.body)).toContain('do the thing');
      await terminal.type('/quit');
      await terminal.keys('Enter');
      expect(await wait_for_file(code_file, 'the exit')).toBe('0');
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('lich sessions resume opens the TUI on that session, as lich -c does (C33)', async () => {
    server.enqueue({ text: 'first answer' }, { text: 'second answer' });
    const first = await run_lich(['remember the word owl'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(first.code).toBe(0);
    const [file] = await session_files(sandbox.work_dir);
    const id =
      (file ?? '')
        .split('/')
        .at(-1)
        ?.replace(/\.jsonl$/, '') ?? '';
    const terminal = new TmuxTerminal();
    try {
      const code_file = await start(terminal, ['sessions', 'resume', id.slice(-8)]);
      await terminal.wait_for((text) => text.includes('ask anything'), 'the TUI');
      await terminal.wait_for((text) => text.includes('first answer'), 'the resumed exchange');
      await terminal.type('and now?');
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('second answer'), 'the answer');
      expect(JSON.stringify(server.requests[1]?.body)).toContain('remember the word owl');
      await terminal.type('/quit');
      await terminal.keys('Enter');
      expect(await wait_for_file(code_file, 'the exit')).toBe('0');
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('lich tui --resume <unknown> exits 2, as every "no such session" does (C12)', async () => {
    const terminal = new TmuxTerminal();
    try {
      const code_file = await start(terminal, ['tui', '--resume', 'zzzz']);
      expect(await wait_for_file(code_file, 'the exit')).toBe('2');
    } finally {
      await terminal.kill();
    }
  }, 60_000);
});

/**
 * The TUI's small promises, in a real terminal (tmux): a refused key names its variable as the CLI
 * does (C44), Ctrl+T says what it did (C45), Ctrl+O opens a tool's whole output (C15), the status
 * line says whether commands are sandboxed (C46).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made));

let starts = 0;

/** Starts `lich args` in tmux; resolves with the file its exit code goes to. */
async function start(
  terminal: TmuxTerminal,
  args: readonly string[],
  extra_env: Record<string, string> = {},
  columns = 100,
): Promise<string> {
  starts += 1;
  const code_file = join(sandbox.temp.path, `exit_code_${starts}`);
  const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color', ...extra_env };
  // the shell stays a while after lich: tmux blanks a dead pane, and what lich left is read
  await start_lich(terminal, {
    bin: BIN,
    env,
    args,
    cwd: sandbox.work_dir,
    code_file,
    columns,
    rows: 30,
    linger: true,
  });
  return code_file;
}

async function quit(terminal: TmuxTerminal, code_file: string): Promise<void> {
  await terminal.type('/quit');
  await terminal.keys('Enter');
  expect(await wait_for_file(code_file, 'the exit')).toBe('0');
}

describe.skipIf(TMUX.skip)(`the TUI keeps its small promises${TMUX.reason}`, () => {
  it('a refused key names the variable it is read from, as the CLI does (C44)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
      const code_file = await start(terminal, ['tui', 'q'], { OPENAI_API_KEY: 'sk-wrong' });
      await terminal.wait_for(
        (text) => text.includes('check the key in OPENAI_API_KEY'),
        'the key hint',
      );
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('the status line says whether commands are sandboxed before any ran (C46)', async () => {
    const terminal = new TmuxTerminal();
    try {
      const code_file = await start(terminal, ['tui']);
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.wait_for((text) => /sandbox (on|off)/.test(text), 'the sandbox state');
      expect(server.requests).toHaveLength(0);
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('Ctrl+T says what it did (C45); Ctrl+O opens the last tool output (C15)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue(
        {
          reasoning: 'Thinking it over.',
          tool_calls: [
            {
              name: 'terminal',
              arguments: { command: "seq 1 3; printf 'seen-%s\\n' on-stderr >&2; exit 3" },
            },
          ],
        },
        { text: 'The command failed.' },
      );
      const code_file = await start(terminal, ['tui', '--yolo', 'run it']);
      await terminal.wait_for((text) => text.includes('The command failed.'), 'the answer');
      // the status line says how commands ran (C46)
      await terminal.wait_for((text) => /sandbox (on|off)/.test(text), 'the sandbox state');
      expect(terminal.last).not.toContain('seen-on-stderr');
      await terminal.keys('C-o');
      await terminal.wait_for((text) => text.includes('seen-on-stderr'), "the command's stderr");
      await terminal.keys('C-t');
      await terminal.wait_for((text) => text.includes('reasoning: shown in full'), 'a note');
      await terminal.keys('C-t');
      await terminal.wait_for((text) => text.includes('reasoning: folded'), 'a note');
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('leaves no status line behind: not after Ctrl+C twice, not after a failed start (C20)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'An answer that stays.' });
      const code_file = await start(terminal, ['tui', 'hello']);
      await terminal.wait_for((text) => text.includes('An answer that stays.'), 'the answer');
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.keys('C-c');
      await terminal.wait_for((text) => text.includes('Press Ctrl+C again'), 'the hint');
      await terminal.keys('C-c');
      expect(await wait_for_file(code_file, 'the exit')).toBe('0');
      const left = await terminal.screen();
      expect(left).toContain('An answer that stays.'); // the transcript stays
      expect(left).not.toContain('Press Ctrl+C again');
      expect(left).not.toContain('ask anything');
    } finally {
      await terminal.kill();
    }
    const again = new TmuxTerminal();
    try {
      const code_file = await start(again, ['tui', '--resume', 'zzzz']);
      expect(await wait_for_file(code_file, 'the exit')).toBe('2');
      const left = await again.screen();
      expect(left).toContain("no session 'zzzz'");
      expect(left).not.toContain('starting…');
    } finally {
      await again.kill();
    }
  }, 60_000);

  // C21: when the terminal narrows below a line of the live region (the status line, with its
  // cost), a terminal that re-wraps its lines (tmux here, as most do) puts the old frame on more
  // rows than it has lines; the TUI erases those rows, so no row is left over as a blank line.
  // (`env -i` drops tmux's own TMUX variable: it is given back, as a shell in tmux has it.)
  it('keeps one blank line between the transcript and the prompt through resizes (C21)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'First answer line.' });
      const code_file = await start(terminal, ['tui', 'hello'], { TMUX: '/tmp/tmux-e2e,1,0' });
      await terminal.wait_for((text) => text.includes('First answer line.'), 'the answer');
      const gap = (screen: string) => {
        const lines = screen.split('\n');
        const answer = lines.findIndex((line) => line.includes('First answer line.'));
        const prompt = lines.findIndex((line) => line.includes('ask anything'));
        return prompt - answer;
      };
      const before = gap(
        await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt'),
      );
      for (const columns of [80, 60, 90, 50, 100]) {
        await terminal.resize(columns, 30);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const after = await terminal.wait_for(
        (text) => text.includes('ask anything') && text.includes('First answer line.'),
        'the screen after resizes',
      );
      expect(gap(after)).toBe(before);
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('at 50 columns a tool line keeps its name and target (C22)', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue(
        {
          tool_calls: [
            { name: 'write_file', arguments: { path: 'notes.md', content: 'one\ntwo\nthree\n' } },
          ],
        },
        { text: 'Written.' },
      );
      const code_file = await start(terminal, ['tui', '--yolo', 'write notes'], {}, 50);
      const screen = await terminal.wait_for((text) => text.includes('Written.'), 'the answer');
      expect(screen).toContain('write_file notes.md');
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);

  it('@path attaches the file, Tab-completed or typed; a path outside is refused (C31)', async () => {
    await mkdir(join(sandbox.work_dir, 'src'), { recursive: true });
    await writeFile(join(sandbox.work_dir, 'src', 'main.ts'), 'export const owl = "hoot";\n');
    await writeFile(join(sandbox.temp.path, 'outside.txt'), 'not for the model\n');
    const terminal = new TmuxTerminal();
    try {
      server.enqueue({ text: 'It exports owl.' }, { text: 'Second.' });
      const code_file = await start(terminal, ['tui']);
      await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
      await terminal.type('look at @src/ma');
      // the file index is walked in the background: Tab again until it completes
      for (let tries = 0; !(await terminal.screen()).includes('look at @src/main.ts'); tries++) {
        if (tries === 20) throw new Error(`Tab never completed @src/ma:\n${terminal.last}`);
        await terminal.keys('Tab');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('It exports owl.'), 'the answer');
      const first = JSON.stringify(server.requests[0]?.body);
      expect(first, first).toContain('export const owl');
      expect(first).toContain('<file path=\\"src/main.ts\\">');
      // the transcript names the file instead of showing it
      expect(terminal.last).toContain('+ src/main.ts');
      expect(terminal.last).not.toContain('export const owl');
      await terminal.type('and @../outside.txt?');
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('Second.'), 'the second answer');
      await terminal.wait_for(
        (text) => text.includes('@../outside.txt was not attached'),
        'a note',
      );
      expect(JSON.stringify(server.requests[1]?.body)).not.toContain('not for the model');
      await quit(terminal, code_file);
    } finally {
      await terminal.kill();
    }
  }, 60_000);
});

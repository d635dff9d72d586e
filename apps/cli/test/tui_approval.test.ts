/**
 * Approvals in the TUI, in a real terminal (tmux): type-ahead never answers a permission question
 * (C2), and the question shows what it approves, with "say why" sending a note to the model (C3).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { BIN, openai_env, request_body, type Sandbox, sandbox_and_server_each } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each((made) => ({ sandbox, server } = made), {
  'src/main.ts': 'export const a = 1;\n// TODO: subtract\n',
});

async function open_tui(terminal: TmuxTerminal, args: readonly string[] = []): Promise<void> {
  const env = { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' };
  await start_lich(terminal, { bin: BIN, env, args, cwd: sandbox.work_dir, rows: 40 });
  await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Types `text` one key at a time, `gap_ms` apart, as a person does. */
async function type_slowly(terminal: TmuxTerminal, text: string, gap_ms = 150): Promise<void> {
  for (const char of text) {
    await terminal.type(char);
    await new Promise((resolve) => setTimeout(resolve, gap_ms));
  }
}

describe.skipIf(TMUX.skip)(`lich tui approvals in tmux${TMUX.reason}`, () => {
  for (const [sentence, dangerous_key] of [
    ['and then summarize', 'a'],
    ['yes, that is fine', 'y'],
  ] as const) {
    it(`keys typed as the question appears never answer it: "${sentence}" (its '${dangerous_key}')`, async () => {
      const terminal = new TmuxTerminal();
      try {
        server.enqueue(
          { tool_calls: [{ name: 'read_file', arguments: { path: 'src/main.ts' } }] },
          {
            delay_ms: 1_500,
            tool_calls: [{ name: 'terminal', arguments: { command: 'echo DANGER > danger.txt' } }],
          },
          { text: 'typeahead done' },
        );
        await open_tui(terminal);
        await terminal.type('go');
        await terminal.keys('Enter');
        await terminal.wait_for((text) => /✓ read_file src\/main\.ts/.test(text), 'the read');
        // the question appears while this is being typed
        await type_slowly(terminal, sentence);
        await type_slowly(terminal, sentence);
        const screen = await terminal.wait_for(
          (text) => text.includes('Allow terminal: echo DANGER > danger.txt?'),
          'the question',
        );
        expect(screen).toContain('│ echo DANGER > danger.txt');
        // nothing typed answered it: no command ran, the question is still there
        expect(await exists(join(sandbox.work_dir, 'danger.txt'))).toBe(false);
        expect(screen).not.toMatch(/allowed (once|always): terminal/);
        // the typed text is kept in the editor
        expect(screen).toContain(`${sentence}${sentence}`);
        // once the keys stop, the question arms, and a deliberate answer works
        await terminal.wait_for(
          (text) => text.includes('1 allow once · 2 allow always') && !text.includes('⧗ 1 allow'),
          'the armed question',
        );
        await terminal.type('3');
        await terminal.wait_for((text) => text.includes('typeahead done'), 'the answer');
        expect(await exists(join(sandbox.work_dir, 'danger.txt'))).toBe(false);
      } finally {
        await terminal.kill();
      }
    }, 90_000);
  }

  it('shows the diff of an edit and the content of a new file before approving, and "say why" reaches the model', async () => {
    const terminal = new TmuxTerminal();
    try {
      server.enqueue(
        {
          tool_calls: [
            {
              name: 'edit_file',
              arguments: {
                path: 'src/main.ts',
                old_text: '// TODO: subtract',
                new_text: 'export const sub = (a: number, b: number) => a - b;',
              },
            },
          ],
        },
        {
          tool_calls: [
            {
              name: 'write_file',
              arguments: { path: 'notes.md', content: '# Notes\n\nsome notes\n' },
            },
          ],
        },
        { text: 'All done.' },
      );
      await open_tui(terminal);
      await terminal.type('do the edits');
      await terminal.keys('Enter');
      const edit = await terminal.wait_for(
        (text) => text.includes('Allow edit_file: src/main.ts?'),
        'the edit question',
      );
      expect(edit).toContain('+1 −1');
      expect(edit).toContain('│ -// TODO: subtract');
      expect(edit).toContain('│ +export const sub = (a: number, b: number) => a - b;');
      await terminal.wait_for((text) => !text.includes('⧗ 1 allow'), 'the armed question');
      await terminal.type('1');
      const write = await terminal.wait_for(
        (text) => text.includes('Allow write_file: notes.md?'),
        'the write question',
      );
      expect(write).toContain('new file, 20 bytes, 3 lines');
      expect(write).toContain('│ # Notes');
      expect(write).toContain('│ some notes');
      await terminal.wait_for((text) => !text.includes('⧗ 1 allow'), 'the armed question');
      await terminal.type('5');
      await terminal.wait_for((text) => text.includes('Your words go to the model'), 'the note');
      await terminal.type('put notes in docs/ instead');
      await terminal.keys('Enter');
      await terminal.wait_for((text) => text.includes('All done.'), 'the answer');
      expect(await readFile(join(sandbox.work_dir, 'src/main.ts'), 'utf8')).toContain(
        'export const sub',
      );
      expect(await exists(join(sandbox.work_dir, 'notes.md'))).toBe(false);
      expect(JSON.stringify(request_body(server, 2))).toContain(
        'The user declined write_file: notes.md and said: put notes in docs/ instead',
      );
    } finally {
      await terminal.kill();
    }
  }, 90_000);
});

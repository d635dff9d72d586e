/**
 * Rewind in a real terminal (tmux), against the testkit's fake OpenAI server: in the TUI (in
 * process, and over `lich serve --stdio`), pick a prompt with the keys, restore, and see the files
 * and the conversation come back, the prompt in the input again; in `lich chat`, the same through
 * its questions.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, type Sandbox } from './helpers.js';
import { start_lich as start_lich_in, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
let terminal: TmuxTerminal;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'old notes\n', 'build/out.js': 'built\n' });
  server = await start_openai_server();
  terminal = new TmuxTerminal();
});

afterEach(async () => {
  await terminal.kill();
  await server.close();
  await sandbox.cleanup();
});

async function start_lich(args: readonly string[]): Promise<string> {
  const code_file = join(sandbox.temp.path, 'exit_code');
  const env = {
    ...openai_env(sandbox, server.base_url),
    TERM: 'xterm-256color',
    LICH_CODE_CACHE_DIR: join(sandbox.temp.path, 'code-cache'),
  };
  await start_lich_in(terminal, {
    bin: BIN,
    env,
    args,
    cwd: sandbox.work_dir,
    code_file,
    columns: 110,
    rows: 32,
  });
  return code_file;
}

const read = (path: string) => readFile(join(sandbox.work_dir, path), 'utf8');

/** The model's turn: an edit, then a command that removes a folder and renames the file. */
function script_turn(): void {
  server.enqueue(
    {
      tool_calls: [
        { name: 'write_file', arguments: { path: 'notes.txt', content: 'new notes\n' } },
        { name: 'terminal', arguments: { command: 'rm -rf build && mv notes.txt moved.txt' } },
      ],
    },
    { text: 'The notes are CHANGED.' },
  );
}

async function tui_flow(args: readonly string[]): Promise<void> {
  script_turn();
  const code_file = await start_lich([...args, '--yolo']);
  await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
  await terminal.type('change the notes');
  await terminal.keys('Enter');
  await terminal.wait_for((text) => text.includes('The notes are CHANGED.'), 'the answer');
  // the prompt is marked as one that can be rewound
  await terminal.wait_for(
    (text) => text.includes('↺ checkpoint: prompt 1 can be rewound'),
    'the checkpoint mark',
  );
  expect(await read('moved.txt')).toBe('new notes\n');
  // the answer is drawn before the turn has ended: /rewind waits for the idle prompt
  await terminal.wait_for(
    (text) => (text.split('The notes are CHANGED.').at(-1) ?? '').includes('ask anything'),
    'the turn to end',
  );

  await terminal.type('/rewind');
  await terminal.keys('Enter');
  await terminal.wait_for(
    (text) =>
      text.includes('Rewind to before which prompt?') && /↺\s+1 .*change the notes/.test(text),
    'the prompts to rewind',
  );
  await terminal.wait_for((text) => text.includes('3 files +1 −2'), 'the files the prompt changed');
  await terminal.keys('Enter');
  await terminal.wait_for((text) => text.includes('Conversation and files'), 'what to restore');
  await terminal.keys('Enter');
  await terminal.wait_for((text) => text.includes('Rewound to before prompt 1.'), 'the rewind');
  expect(await read('notes.txt')).toBe('old notes\n');
  expect(await read('build/out.js')).toBe('built\n');
  await expect(read('moved.txt')).rejects.toThrow();
  // the prompt is back in the input, to send again or edit
  await terminal.wait_for(
    (text) =>
      /›\s*change the notes\s*$/m.test(text.split('Rewound to before prompt 1.').at(-1) ?? ''),
    'the prompt back in the input',
  );
  // …and the conversation was drawn again without the rewound exchange
  const after = (await terminal.all()).split('Rewound to before prompt 1.').at(-1) ?? '';
  expect(after).not.toContain('The notes are CHANGED.');

  // redo brings the turn back
  await terminal.keys('C-u');
  await terminal.type('/rewind --redo');
  await terminal.keys('Enter');
  await terminal.wait_for(
    (text) => text.includes('Redone: the last rewind was undone.'),
    'the redo',
  );
  expect(await read('moved.txt')).toBe('new notes\n');
  await terminal.wait_for(
    (text) =>
      (text.split('Redone').at(-2) ?? '').length > 0 && text.split('Redone').at(-1) !== undefined,
    'the screen after the redo',
  );
  await terminal.type('/quit');
  await terminal.keys('Enter');
  expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
}

describe.skipIf(TMUX.skip)(`rewind in a real terminal${TMUX.reason}`, () => {
  it('the TUI: picks a prompt, restores files and conversation, redoes (in process)', async () => {
    await tui_flow([]);
  }, 120_000);

  it('the TUI does the same over lich serve --stdio (--connect)', async () => {
    await tui_flow(['tui', '--connect']);
  }, 120_000);

  it('lich chat: /rewind asks which prompt and what to restore', async () => {
    script_turn();
    const code_file = await start_lich(['chat', '--yolo']);
    await terminal.wait_for((text) => text.includes('lich chat'), 'the chat');
    await terminal.type('change the notes');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('The notes are CHANGED.'), 'the answer');
    await terminal.type('/rewind');
    await terminal.keys('Enter');
    await terminal.wait_for(
      (text) => text.includes('Rewind to before which prompt?'),
      'the question',
    );
    expect(terminal.last).toMatch(/↺\s+1 .*change the notes .*3 files \+1 −2/);
    await terminal.type('1');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('Restore [a]ll'), 'what to restore');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('Rewound to before prompt 1.'), 'the rewind');
    expect(await read('notes.txt')).toBe('old notes\n');
    await expect(read('moved.txt')).rejects.toThrow();
    await terminal.wait_for(
      (text) => /› change the notes\s*$/.test(text.trimEnd()),
      'the prompt back',
    );
    await terminal.keys('C-u');
    await terminal.type('/exit');
    await terminal.keys('Enter');
    expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  }, 120_000);
});

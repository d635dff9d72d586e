/**
 * The TUI end to end: the built `lich` in a real terminal (tmux), against the testkit's fake
 * OpenAI server. The same flow runs in process (bare `lich`) and with `lich tui --connect` (the
 * agent in a supervised `lich serve --stdio` child).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, type Sandbox } from './helpers.js';
import { start_lich as start_lich_in, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

const FIRST_ANSWER =
  'The first answer begins here and goes on for a while, word after word, so that it ' +
  'streams in many small pieces until it ends with FINISHED.';

let sandbox: Sandbox;
let server: FakeServer;
let terminal: TmuxTerminal;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'old notes\n' });
  server = await start_openai_server();
  terminal = new TmuxTerminal();
});

afterEach(async () => {
  await terminal.kill();
  await server.close();
  await sandbox.cleanup();
});

/** Starts `lich args` in the terminal; resolves with the file its exit code will be written to. */
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
    columns: 100,
    rows: 30,
  });
  return code_file;
}

const count = (text: string, part: string) => text.split(part).length - 1;

/** Resolves once a file named `name` is in a folder of the code cache, or throws after 10 s. */
async function wait_for_cache_file(name: string): Promise<void> {
  const root = join(sandbox.temp.path, 'code-cache');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const keys = await readdir(root).catch(() => [] as string[]);
    for (const key of keys) {
      if ((await readdir(join(root, key)).catch(() => [] as string[])).includes(name)) return;
    }
    if (Date.now() > deadline) throw new Error(`${name} was not written while the TUI ran`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function the_flow(args: readonly string[]): Promise<void> {
  server.enqueue(
    { text: FIRST_ANSWER, chunk_chars: 6, chunk_delay_ms: 40 },
    { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    {
      tool_calls: [
        { name: 'write_file', arguments: { path: 'notes.txt', content: 'new notes\n' } },
      ],
    },
    { text: 'The notes are updated.' },
  );
  const code_file = await start_lich(args);
  await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
  await terminal.wait_for((text) => text.includes('fake-model'), 'the status line');
  // the code cache is written while the session runs, so a start after a killed session (a
  // closed terminal) is compiled too, not only one after /quit
  await wait_for_cache_file('tui.cjs.cache');
  await wait_for_cache_file('main.cjs.cache');

  // the answer streams: seen in part before it is seen whole
  await terminal.type('tell me something');
  await terminal.keys('Enter');
  await terminal.wait_for(
    (text) => text.includes('The first answer begins') && !text.includes('FINISHED'),
    'a part of the answer',
  );
  await terminal.wait_for((text) => text.includes('FINISHED'), 'the whole answer');

  // a tool line, then a permission prompt answered with one key
  await terminal.type('update the notes');
  await terminal.keys('Enter');
  await terminal.wait_for((text) => /✓ read_file notes\.txt/.test(text), 'the read_file line');
  await terminal.wait_for((text) => text.includes('Allow write_file'), 'the permission prompt');
  // a question takes keys only once it is armed (a quiet spell after it appeared)
  await terminal.wait_for((text) => !text.includes('⧗ 1 allow'), 'the armed question');
  await terminal.type('y');
  await terminal.wait_for(
    (text) => text.includes('The notes are updated.') && /✓ write_file notes\.txt/.test(text),
    'the end of the second answer',
  );
  expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('new notes\n');

  // a resize redraws only the live region: the scrollback keeps the first answer, once
  await terminal.resize(70, 20);
  const after = await terminal.wait_for(
    (text) => text.includes('ask anything') && text.includes('FINISHED'),
    'the screen after the resize',
  );
  expect(count(after, 'The first answer begins')).toBe(1);

  await terminal.type('/clear');
  await terminal.keys('Enter');
  await terminal.wait_for((text) => text.includes('new session'), 'the new session');
  await terminal.type('/quit');
  await terminal.keys('Enter');
  expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  const last = await terminal.all();
  expect(last).toContain('FINISHED');
  expect(server.requests).toHaveLength(4);
}

describe.skipIf(TMUX.skip)(`lich tui in a real terminal${TMUX.reason}`, () => {
  it('streams, shows tools, asks, survives a resize, clears and quits (in process)', async () => {
    await the_flow([]);
  }, 120_000);

  it('does the same over lich serve --stdio (--connect)', async () => {
    await the_flow(['tui', '--connect']);
  }, 120_000);
});

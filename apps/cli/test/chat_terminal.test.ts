/**
 * `lich chat` in a real terminal (tmux), where readline edits the line: what a person types
 * around an answer and a permission question ends up as the words they typed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, type Sandbox } from './helpers.js';
import { start_lich, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
let terminal: TmuxTerminal;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.txt': 'old\n' });
  server = await start_openai_server();
  terminal = new TmuxTerminal();
});

afterEach(async () => {
  await terminal.kill();
  await server.close();
  await sandbox.cleanup();
});

/** Starts `lich chat` in the terminal; resolves with the file its exit code goes to. */
async function start_chat(): Promise<string> {
  const code_file = join(sandbox.temp.path, 'exit_code');
  await start_lich(terminal, {
    bin: BIN,
    env: { ...openai_env(sandbox, server.base_url), TERM: 'xterm-256color' },
    args: ['chat'],
    cwd: sandbox.work_dir,
    code_file,
  });
  await terminal.wait_for((text) => text.includes('/exit to leave'), 'the chat');
  return code_file;
}

describe.skipIf(TMUX.skip)(`lich chat in a terminal${TMUX.reason}`, () => {
  it('words typed without Enter during an answer stay a draft, and the next keys go after them', async () => {
    server.enqueue(
      {
        delay_ms: 1_500,
        tool_calls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'new\n' } }],
      },
      { text: 'Done.' },
      { text: 'Got it.' },
    );
    const code_file = await start_chat();
    await terminal.type('update the notes');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('thinking'), 'the answer under way');
    // typed while the model thinks, with no Enter: a draft of the next message
    await terminal.type('and ');
    await terminal.wait_for((text) => text.includes('allow?'), 'the question');
    await new Promise((resolve) => setTimeout(resolve, 900));
    await terminal.type('n');
    await terminal.wait_for((text) => /Done\.\s*\n+› and\s*$/.test(text.trimEnd()), 'the draft');
    await terminal.type('then more');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('Got it.'), 'the second answer');
    const third = server.requests[2]?.body as { messages: { role: string; content: string }[] };
    expect(third.messages.at(-1)).toMatchObject({ role: 'user', content: 'and then more' });
    expect(await readFile(join(sandbox.work_dir, 'notes.txt'), 'utf8')).toBe('old\n');
    await terminal.type('/exit');
    await terminal.keys('Enter');
    expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  }, 60_000);

  it('Ctrl+C during an answer puts the queued message back ahead of the draft being typed', async () => {
    server.enqueue({ delay_ms: 30_000, text: 'too late' }, { text: 'Got both.' });
    const code_file = await start_chat();
    await terminal.type('a long question');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('thinking'), 'the answer under way');
    await terminal.type('first queued');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('queued: first queued'), 'the queue');
    await terminal.type('draft');
    await terminal.keys('C-c');
    await terminal.wait_for(
      (text) => /› first queued draft\s*$/.test(text.trimEnd()),
      'both back at the prompt',
    );
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('Got both.'), 'the answer to both');
    const sent = server.requests[1]?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: 'first queued draft' });
    await terminal.type('/exit');
    await terminal.keys('Enter');
    expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  }, 60_000);
});

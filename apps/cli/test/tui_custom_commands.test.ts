/**
 * A team's setup in the TUI, in a real terminal (tmux): custom commands listed by /help and run
 * as prompts, and the one trust question a folder that ships hooks asks before the screen opens.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, type Sandbox } from './helpers.js';
import { start_lich as start_lich_in, TmuxTerminal, tmux_or_skip, wait_for_file } from './tmux.js';

const TMUX = await tmux_or_skip();

let sandbox: Sandbox;
let server: FakeServer;
let terminal: TmuxTerminal;

beforeEach(async () => {
  sandbox = await make_sandbox();
  server = await start_openai_server();
  terminal = new TmuxTerminal();
});

afterEach(async () => {
  await terminal.kill();
  await server.close();
  await sandbox.cleanup();
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(sandbox.work_dir, path)), { recursive: true });
  await writeFile(join(sandbox.work_dir, path), text);
}

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
    rows: 40,
  });
  return code_file;
}

describe.skipIf(TMUX.skip)(`a team's setup in lich tui${TMUX.reason}`, () => {
  it('lists the custom commands in /help and runs one as a prompt', async () => {
    await put(
      '.claude/commands/review.md',
      '---\ndescription: Review a file\n---\nReview $ARGUMENTS.\n',
    );
    await put(
      '.gemini/commands/frontend/component.toml',
      'description = "Scaffold a component"\nprompt = "Create a component named {{args}}."\n',
    );
    server.enqueue({ text: 'Created the UserCard component.' });
    const code_file = await start_lich(['tui']);
    await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
    await terminal.type('/help');
    await terminal.keys('Enter');
    await terminal.wait_for(
      (text) => text.includes('/review') && text.includes('/frontend:component'),
      'the custom commands in /help',
    );
    await terminal.type('/frontend:component UserCard');
    await terminal.keys('Enter');
    await terminal.wait_for(
      (text) => text.includes('Created the UserCard component.'),
      'the answer',
    );
    const body = server.requests[0]?.body as { messages: { content: string }[] };
    expect(body.messages.at(-1)?.content).toBe('Create a component named UserCard.');
    await terminal.type('/quit');
    await terminal.keys('Enter');
    expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  });

  it('asks once whether to trust a folder that ships hooks, keeps the answer, then runs them', async () => {
    await put(
      '.lich/config.json',
      JSON.stringify({
        hooks: {
          UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo ran > hooked.txt' }] }],
        },
      }),
    );
    server.enqueue({ text: 'Hello there.' });
    const code_file = await start_lich(['tui']);
    await terminal.wait_for((text) => text.includes('trust it?'), 'the trust question');
    expect(await terminal.screen()).toMatch(/hooks in .*\.lich\/config\.json: UserPromptSubmit ×1/);
    // the question takes a key only after a quiet spell (type-ahead never answers it)
    await new Promise((resolve) => setTimeout(resolve, 900));
    await terminal.type('y');
    await terminal.wait_for((text) => text.includes('ask anything'), 'the prompt');
    await terminal.type('hi');
    await terminal.keys('Enter');
    await terminal.wait_for((text) => text.includes('Hello there.'), 'the answer');
    expect(existsSync(join(sandbox.work_dir, 'hooked.txt'))).toBe(true);
    const kept = JSON.parse(
      await readFile(join(sandbox.xdg, 'lich', 'trusted_folders.json'), 'utf8'),
    );
    expect(kept.folders[sandbox.work_dir]).toBe('trusted');
    await terminal.type('/quit');
    await terminal.keys('Enter');
    expect(await wait_for_file(code_file, 'the exit of lich')).toBe('0');
  });
});

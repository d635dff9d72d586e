import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

const run = (args: string[], extra: Partial<Parameters<typeof run_lich>[1]> = {}) =>
  run_lich(args, { cwd: sandbox.work_dir, env: openai_env(sandbox, server.base_url), ...extra });

/** Runs one task and returns its session file. */
async function one_session(task: string, answer: string): Promise<string> {
  server.enqueue({ text: answer });
  expect((await run([task])).code).toBe(0);
  const files = await session_files(sandbox.work_dir);
  return files.at(-1) as string;
}

describe('session ids', () => {
  it('accepts the short random suffix, a short prefix of it, and the path lich prints', async () => {
    const path = await one_session('compare apples and pears', 'Pears are sweeter.');
    const id = (path.split('/').at(-1) as string).replace(/\.jsonl$/, '');
    const short = id.slice(-8);
    const list = await run(['sessions', 'list']);
    expect(list.stdout.split(/\s+/)[0]).toBe(short);
    for (const given of [short, short.slice(0, 4), path, relative(sandbox.work_dir, path), id]) {
      const show = await run(['sessions', 'show', given]);
      expect(show.code, given).toBe(0);
      expect(show.stdout, given).toMatch(/^user: compare apples and pears$/m);
    }
    // two characters are too few for a prefix of the short id; a prefix of the whole id (its
    // date, when the short id starts with "20") has no minimum
    const two = short.slice(0, 2);
    const too_short = await run(['sessions', 'show', two]);
    expect(too_short.code).toBe(id.startsWith(two) ? 0 : 2);
  });
});

describe('a damaged session', () => {
  it('show says to run lich sessions repair (no library option); repair fixes it', async () => {
    const path = await one_session('first question', 'first answer');
    const text = await readFile(path, 'utf8');
    const lines = text.trimEnd().split('\n');
    lines.splice(2, 0, '{ this is not json');
    await writeFile(path, `${lines.join('\n')}\n`);
    const short = path.replace(/\.jsonl$/, '').slice(-8);
    for (const command of ['show', 'export', 'resume']) {
      const broken = await run([
        'sessions',
        command,
        short,
        ...(command === 'resume' ? ['go on'] : []),
      ]);
      expect(broken.code, command).toBe(1);
      expect(broken.stderr, command).toMatch(/is damaged: line 3 is not a valid record/);
      expect(broken.stderr, command).toContain(`lich sessions repair ${short}`);
      expect(broken.stderr, command).not.toMatch(/repair: true|\{ ?repair/);
    }
    // lich chat opens it through its SessionHost, with the same advice
    const chat = await run(['chat', '--resume', short], { input: 'go on\n' });
    expect(chat.code).toBe(1);
    expect(chat.stderr).toContain(`lich sessions repair ${short}`);
    const repaired = await run(['sessions', 'repair', short]);
    expect(repaired.code).toBe(0);
    expect(repaired.stderr).toMatch(/moved 1 bad line to .*\.corrupt/);
    expect(await readFile(`${path}.corrupt`, 'utf8')).toBe('{ this is not json\n');
    const show = await run(['sessions', 'show', short]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^assistant: first answer$/m);
    const again = await run(['sessions', 'repair', short]);
    expect(again.stderr).toMatch(/nothing to repair/);
  });
});

describe('resuming the newest session', () => {
  it('-c/--continue and sessions resume without an id go on with the newest session', async () => {
    await one_session('the old question', 'old answer');
    await one_session('the newest question', 'newest answer');
    server.enqueue({ text: 'continued' }, { text: 'resumed' });
    const continued = await run(['-c', 'and then?']);
    expect(continued.code).toBe(0);
    expect(continued.stdout).toBe('continued\n');
    const contents = request_body(server, 2).messages.map((message) => message.content);
    expect(contents).toContain('the newest question');
    expect(contents).not.toContain('the old question');
    const resumed = await run(['sessions', 'resume'], { input: 'and now?\n' });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('resumed\n');
    expect(request_body(server, 3).messages.map((message) => message.content)).toContain(
      'and then?',
    );
    expect(await session_files(sandbox.work_dir)).toHaveLength(2);
  });

  it('-c with no session starts a new one with a warning', async () => {
    server.enqueue({ text: 'fresh' });
    const result = await run(['--continue', 'hello']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/no session to continue/);
    expect(result.stdout).toBe('fresh\n');
  });
});

/**
 * Pictures from the shell (#35): `--image`, `@shot.png`, a `read_file` of a PNG, and a session
 * with pictures resumed, each run through the built `lich` against the fake OpenAI server.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, TINY_PNG_BASE64, tiny_png } from '@lich/testkit';
import { beforeEach, describe, expect, it } from 'vitest';
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

sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'hello\n' });

beforeEach(async () => {
  await writeFile(join(sandbox.work_dir, 'shot.png'), tiny_png());
});

type Part = { type: string; text?: string; image_url?: { url: string } };
type Body = { messages: { role: string; content: string | Part[] | null }[] };

const DATA_URL = `data:image/png;base64,${TINY_PNG_BASE64}`;
const HASH = createHash('sha256').update(tiny_png()).digest('hex');

describe('pictures from the shell', () => {
  it('lich --image shot.png "what is wrong here" sends the picture, and keeps it by hash', async () => {
    server.enqueue({ text: 'The dot is off-centre.' });
    const result = await run_lich(['--image', 'shot.png', 'what is wrong here'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The dot is off-centre.\n');
    const user = request_body<Body>(server, 0).messages.at(-1);
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is wrong here' },
        { type: 'image_url', image_url: { url: DATA_URL } },
      ],
    });
    const [file] = await session_files(sandbox.work_dir);
    const transcript = await readFile(file as string, 'utf8');
    expect(transcript).not.toContain(TINY_PNG_BASE64);
    expect(transcript).toContain(HASH);
    expect(await readdir(join(sandbox.work_dir, '.lich', 'blobs'))).toEqual([HASH]);
  });

  it('resumes a session with a picture: the next request sends it again from the blob', async () => {
    server.enqueue({ text: 'A dot.' }, { text: 'Still a dot.' });
    const env = openai_env(sandbox, server.base_url);
    await run_lich(['-i', 'shot.png', 'what is this'], { cwd: sandbox.work_dir, env });
    const again = await run_lich(['-c', 'and now?'], { cwd: sandbox.work_dir, env });
    expect(again.code).toBe(0);
    const messages = request_body<Body>(server, 1).messages;
    const first_user = messages.find((message) => message.role === 'user');
    expect(first_user?.content).toEqual([
      { type: 'text', text: 'what is this' },
      { type: 'image_url', image_url: { url: DATA_URL } },
    ]);
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'and now?' });
  });

  it('@shot.png in the task attaches the picture', async () => {
    server.enqueue({ text: 'A dot.' });
    const result = await run_lich(['look at @shot.png please'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(request_body<Body>(server, 0).messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'look at @shot.png please' },
      { type: 'image_url', image_url: { url: DATA_URL } },
    ]);
  });

  it('read_file of a PNG hands the picture to the model after the tool result', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'shot.png' } }] },
      { text: 'It is one pixel.' },
    );
    const result = await run_lich(['what is in shot.png?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    const messages = request_body<Body>(server, 1).messages;
    expect(messages.at(-2)).toMatchObject({ role: 'tool' });
    expect(messages.at(-2)?.content).toMatch(/is a picture \(image\/png, 1×1 px, \d+ bytes\)/);
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The pictures the tool read_file returned:' },
        { type: 'image_url', image_url: { url: DATA_URL } },
      ],
    });
  });

  it('refuses a file that is not a picture, or is missing, before any call', async () => {
    const env = openai_env(sandbox, server.base_url);
    const text = await run_lich(['--image', 'notes.txt', 'hi'], { cwd: sandbox.work_dir, env });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('--image notes.txt: not a PNG, JPEG, GIF or WebP picture');
    const missing = await run_lich(['--image', 'gone.png', 'hi'], { cwd: sandbox.work_dir, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--image gone.png: no such file');
    expect(server.requests).toHaveLength(0);
  });
});

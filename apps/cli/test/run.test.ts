import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, unused_port_url } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  read_records,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
  session_files,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made), {
  'notes.txt': 'The launch code is 4711.\n',
});

type Body = { messages: { role: string; content: string | null }[]; tools?: unknown[] };

describe('lich "task"', () => {
  it('runs read_file then answers: stdout holds exactly the answer, the session the records', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The launch code is 4711.' },
    );
    const result = await run_lich(['what is the launch code?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.stderr).toMatch(/✓ read_file notes\.txt/);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The launch code is 4711.\n');
    const second = request_body<Body>(server, 1);
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(second.messages.at(-1)?.content).toContain('4711');
    const [file] = await session_files(sandbox.work_dir);
    const records = await read_records(file as string);
    const types = records.map((record) => record.type);
    expect(types[0]).toBe('session_start');
    expect(types).toContain('run_start');
    expect(records.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'final' });
    const roles = records
      .filter((record) => record.type === 'message')
      .map((record) => (record.message as { role: string }).role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  });

  it('prints one JSON document with --json', async () => {
    server.enqueue(
      {
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
        usage: { input_tokens: 30, output_tokens: 5 },
      },
      { text: '4711', usage: { input_tokens: 50, output_tokens: 2 } },
    );
    const result = await run_lich(['--json', 'code?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document).toMatchObject({
      answer: '4711',
      stopped_reason: 'final',
      usage: { input_tokens: 80, output_tokens: 7 },
      tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' }, ok: true }],
    });
    expect(document.session_path).toBe((await session_files(sandbox.work_dir))[0]);
  });

  it('fails over from a dead provider to a live one in the configured chain', async () => {
    const dead = await unused_port_url();
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({
        providers: [
          { kind: 'openai_compat', model: 'dead-model', base_url: `${dead}/v1` },
          { kind: 'openai_compat', model: 'live-model', base_url: server.base_url },
        ],
      }),
    );
    server.enqueue({ text: 'answered by the live one' });
    const result = await run_lich(['say hello'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('answered by the live one\n');
    expect(result.stderr).toMatch(
      /dead-model\): network error.*; trying openai_compat \(live-model\)/,
    );
    expect(request_body<{ model: string }>(server, 0).model).toBe('live-model');
  });

  it('aborts on SIGINT mid-stream: exit 130 and the session ends aborted', async () => {
    server.enqueue({
      text: 'a long answer that streams slowly, one small piece at a time, forever and ever',
      chunk_chars: 2,
      chunk_delay_ms: 150,
    });
    const result = await run_lich(['write a long answer'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      on_spawn: (child) => {
        server.wait_for_requests(1, { timeout_ms: 10_000 }).then(
          () => setTimeout(() => child.kill('SIGINT'), 400),
          () => child.kill('SIGKILL'),
        );
      },
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/aborting/);
    const [file] = await session_files(sandbox.work_dir);
    const records = await read_records(file as string);
    expect(records.at(-1)).toMatchObject({ type: 'run_end', stopped_reason: 'aborted' });
  });

  it('sends AGENTS.md of the work dir and the repository root in the system prompt', async () => {
    await mkdir(join(sandbox.temp.path, '.git'));
    await writeFile(join(sandbox.temp.path, 'AGENTS.md'), 'Always answer in haiku.');
    await writeFile(join(sandbox.work_dir, 'AGENTS.md'), 'Never touch the notes.');
    server.enqueue({ text: 'ok' });
    const result = await run_lich(['hi'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    const system = request_body<Body>(server, 0).messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('Always answer in haiku.');
    expect(system?.content).toContain('Never touch the notes.');
  });

  it('adds piped stdin as context', async () => {
    server.enqueue({ text: 'three lines' });
    const result = await run_lich(['how many lines?'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'a\nb\nc\n',
    });
    expect(result.code).toBe(0);
    const user = request_body<Body>(server, 0).messages.at(-1);
    expect(user?.content).toBe('how many lines?\n\n<stdin>\na\nb\nc\n</stdin>');
  });

  it('clamps a 10 MB stdin with a warning instead of crashing', async () => {
    server.enqueue({ text: 'summarised' });
    const big = Buffer.alloc(10 * 1024 * 1024, 'x\n');
    const result = await run_lich(['summarise'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: big,
      timeout_ms: 30_000,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: stdin is 10\.0 MB; kept \d+ KB/);
    const user = request_body<Body>(server, 0).messages.at(-1);
    expect(user?.content?.length).toBeLessThanOrEqual(256_000 + 200);
    expect(result.stdout).toBe('summarised\n');
  });

  it('exits 1 with the provider message when the model call fails', async () => {
    server.enqueue({ kind: 'status', status: 401, message: 'Incorrect API key provided' });
    const result = await run_lich(['hi'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 401.*Incorrect API key provided/);
    expect(result.stdout).toBe('');
  });

  it('says what to set, in two lines, when no provider is reachable', async () => {
    const result = await run_lich(['hi'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/no model provider/);
    expect(lines[1]).toMatch(/OPENAI_API_KEY.*ANTHROPIC_API_KEY.*Ollama/);
  });

  it('refuses a work dir that does not exist', async () => {
    const result = await run_lich(['-C', 'nowhere', 'hi'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`work dir ${join(sandbox.work_dir, 'nowhere')} does not exist`);
  });

  it('does not record with --no-session', async () => {
    server.enqueue({ text: 'fine' });
    const result = await run_lich(['--no-session', 'hi'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(await session_files(sandbox.work_dir)).toEqual([]);
    await expect(readFile(join(sandbox.work_dir, '.lich', 'sessions'))).rejects.toThrow();
  });
});

/**
 * `lich chat` over a SessionHost (#31): a message that comes while an answer is written is queued
 * and sent after it, `/steer` puts text into the run in flight, a command waits for the answer,
 * and `-v` names who answered each call.
 */
import type { ChildProcess } from 'node:child_process';
import type { FakeServer } from '@lich/testkit';
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

sandbox_and_server_each((made) => ({ sandbox, server } = made), { 'notes.txt': 'old notes\n' });

/** Runs `lich chat` with stdin open: `first` is written at once, the rest once asked. */
function chat(
  args: string[],
  first: string,
  later: (child: ChildProcess) => void,
): ReturnType<typeof run_lich> {
  return run_lich(['chat', ...args], {
    cwd: sandbox.work_dir,
    env: openai_env(sandbox, server.base_url),
    open_stdin: true,
    on_spawn: (child) => {
      child.stdin?.write(first);
      later(child);
    },
  });
}

/** Once the server saw `count` requests, writes `text` to stdin and closes it. */
function after_requests(count: number, text: string) {
  return (child: ChildProcess) => {
    server.wait_for_requests(count, { timeout_ms: 10_000 }).then(
      () => child.stdin?.end(text),
      () => child.kill('SIGKILL'),
    );
  };
}

const users = (index: number) =>
  request_body(server, index)
    .messages.filter((message) => message.role === 'user')
    .map((message) => message.content);

describe('lich chat on a SessionHost', () => {
  it('queues a message typed while the answer is written, and sends it after', async () => {
    server.enqueue(
      { text: 'a slow first answer', chunk_chars: 2, chunk_delay_ms: 80 },
      { text: 'the second answer' },
    );
    const result = await chat([], 'first\n', after_requests(1, 'second\n'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('a slow first answer\nthe second answer\n');
    expect(result.stderr).toContain('queued: second (sent when the answer ends)');
    expect(server.requests).toHaveLength(2);
    const second = request_body(server, 1).messages.filter((message) => message.role !== 'system');
    expect(second.map((message) => message.content)).toEqual([
      'first',
      'a slow first answer',
      'second',
    ]);
    // both turns are recorded in the chat's one session
    const files = await session_files(sandbox.work_dir);
    expect(files).toHaveLength(1);
    const records = await read_records(files[0] as string);
    expect(records.filter((record) => record.type === 'run_end')).toHaveLength(2);
  });

  it('/steer puts text into the run in flight, before the model is asked again', async () => {
    server.enqueue(
      {
        delay_ms: 800,
        tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
      },
      { text: 'Read them, and hi.' },
    );
    const result = await chat([], 'read the notes\n', after_requests(1, '/steer and say hi\n'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Read them, and hi.\n');
    expect(result.stderr).toContain('steering: and say hi');
    expect(server.requests).toHaveLength(2);
    const second = request_body(server, 1).messages;
    // after the tool's result, the steering text as the person's message
    expect(second.at(-2)?.role).toBe('tool');
    expect(second.at(-1)).toMatchObject({ role: 'user', content: 'and say hi' });
  });

  it('a slash command typed during the answer waits for it', async () => {
    server.enqueue(
      { text: 'slow answer', chunk_chars: 2, chunk_delay_ms: 80 },
      { text: 'after the clear' },
    );
    const result = await chat([], 'first\n', after_requests(1, '/clear\nsecond\n'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('slow answer\nafter the clear\n');
    expect(result.stderr).toContain('The conversation was cleared.');
    expect(result.stderr).not.toContain('queued:');
    // /clear ran after the first answer: the second message goes alone
    expect(users(1)).toEqual(['second']);
  });

  it('-v names the provider and model of each call, with its time and tokens', async () => {
    server.enqueue({ text: 'hello', usage: { input_tokens: 12, output_tokens: 3 } });
    const result = await run_lich(['chat', '-v'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'hi\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('hello\n');
    expect(result.stderr).toMatch(
      /turn 1: openai_compat\/fake-model answered in \d+(\.\d)? m?s, 12 tokens in, 3 out/,
    );
  });

  it('ends with 143 on SIGTERM during an answer, sending nothing queued, quietly', async () => {
    server.enqueue(
      { text: 'a slow answer that takes its time', chunk_chars: 2, chunk_delay_ms: 100 },
      { text: 'never' },
    );
    const result = await chat([], 'first\nsecond\n', (child) => {
      server.wait_for_requests(1, { timeout_ms: 10_000 }).then(
        () => setTimeout(() => child.kill('SIGTERM'), 300),
        () => child.kill('SIGKILL'),
      );
    });
    expect(result.code).toBe(143);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).not.toMatch(/aborted|Ctrl\+C/);
  });

  it('goes on with a session given by --resume, its history sent again', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    const first = await run_lich(['chat'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'remember pears\n',
    });
    expect(first.code).toBe(0);
    const [file] = await session_files(sandbox.work_dir);
    const result = await run_lich(['chat', '--resume', file as string], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'what did I say?\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/resumed session [0-9a-f]{8} \(2 messages\)/);
    expect(users(1)).toEqual(['remember pears', 'what did I say?']);
    expect(await session_files(sandbox.work_dir)).toHaveLength(1);
  });

  it('says when the turns ran out and a final answer is asked for, and fails without one', async () => {
    server.enqueue(
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
      { tool_calls: [{ name: 'list_dir', arguments: {} }] },
    );
    const result = await run_lich(['chat', '--max-turns', '1'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'look around\n',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/used the 1 turn allowed; asking for a final answer/);
    expect(result.stderr).toMatch(/no answer within the 1 turn allowed/);
  });

  it('exits 1 when a turn failed, after going on with the next line', async () => {
    server.enqueue({ kind: 'status', status: 400, message: 'bad request' }, { text: 'fine' });
    const result = await run_lich(['chat'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
      input: 'first\nsecond\n',
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('fine\n');
    expect(result.stderr).toMatch(/lich: .*bad request/);
  });
});

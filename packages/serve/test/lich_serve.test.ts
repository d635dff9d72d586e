/**
 * The built `lich serve`, spawned as a user runs it, against the testkit's fake OpenAI-style
 * server: over stdio (a parent process owns it) and over WebSocket (token file, --print-token).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LICH_BIN } from '../../../tooling/vitest/build.js';
import { stdio_transport, ws_transport } from '../src/client_transports.js';
import { LichClient, type SubscribeOutcome } from '../src/lich_client.js';
import type { EventParams } from '../src/protocol_types.js';
import { read_token_file } from '../src/token_file.js';
import { upgrade_status } from './raw_peer.js';

let temp: TempDir;
let model: FakeServer;
let env: Record<string, string>;
let work_dir: string;
const children: ChildProcess[] = [];
const clients: LichClient[] = [];

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-serve-bin-' });
  work_dir = join(temp.path, 'work');
  await mkdir(work_dir, { recursive: true });
  await mkdir(join(temp.path, 'run'), { recursive: true, mode: 0o700 });
  await writeFile(join(work_dir, 'notes.txt'), 'hello from the notes\n');
  model = await start_openai_server();
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(temp.path, 'home'),
    XDG_CONFIG_HOME: join(temp.path, 'xdg'),
    XDG_RUNTIME_DIR: join(temp.path, 'run'),
    NO_COLOR: '1',
    OLLAMA_HOST: '127.0.0.1:9',
    LICH_PROVIDER: 'openai_compat',
    LICH_MODEL: 'fake-model',
    LICH_BASE_URL: model.base_url,
  };
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await model.close();
  await temp.cleanup();
});

function lich(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [LICH_BIN, ...args], {
    cwd: work_dir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function until_turn_completed(client: LichClient, count = 1): Promise<EventParams[]> {
  const events: EventParams[] = [];
  return new Promise((resolve) => {
    let seen = 0;
    client.on_event((event) => {
      events.push(event);
      if (event.type === 'turn.completed' && ++seen === count) resolve(events.slice());
    });
  });
}

/**
 * A tool call that needs permission, answered by the client through `permission.respond`: the
 * first is rejected (nothing written), the second allowed (written). Both decisions are in the
 * session file.
 */
async function permission_round_trip(client: LichClient): Promise<void> {
  model.enqueue(
    { tool_calls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'no' } }] },
    { text: 'Not written.' },
    { tool_calls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'yes' } }] },
    { text: 'Written.', chunk_chars: 2, chunk_delay_ms: 1 },
  );
  const session = await client.request('session.new', { title: 'permissions' });
  const { session_id } = session;
  const answers: ('reject_once' | 'allow_once')[] = ['reject_once', 'allow_once'];
  const responded: Promise<{ accepted: boolean }>[] = [];
  const requests: { request_id: string; tool: string; options: readonly string[] }[] = [];
  client.on_event((event) => {
    if (event.session_id !== session_id || event.type !== 'permission.request') return;
    const payload = event.payload;
    requests.push(payload);
    responded.push(
      client.request('permission.respond', {
        request_id: payload.request_id,
        option: answers.shift() ?? 'reject_once',
      }),
    );
  });
  await client.subscribe(session_id, { can_approve: true });

  const rejected = until_turn_completed(client);
  await client.prompt(session_id, 'write no');
  const first = (await rejected).filter((event) => event.session_id === session_id);
  expect(first.find((event) => event.type === 'permission.resolved')?.payload).toMatchObject({
    option: 'reject_once',
  });
  expect(first.find((event) => event.type === 'tool.end')?.payload).toMatchObject({
    name: 'write_file',
    ok: false,
  });
  await expect(stat(join(work_dir, 'out.txt'))).rejects.toThrow();

  const allowed = until_turn_completed(client);
  await client.prompt(session_id, 'write yes');
  const second = (await allowed).filter((event) => event.session_id === session_id);
  const types = second.map((event) => event.type);
  expect(types.indexOf('permission.request')).toBeLessThan(types.indexOf('permission.resolved'));
  expect(types.indexOf('permission.resolved')).toBeLessThan(types.indexOf('tool.end'));
  expect(second.find((event) => event.type === 'tool.end')?.payload).toMatchObject({
    name: 'write_file',
    ok: true,
  });
  expect(
    second
      .filter((event) => event.type === 'message.delta')
      .map((event) => (event.payload as { text: string }).text)
      .join(''),
  ).toBe('Written.');
  expect(await readFile(join(work_dir, 'out.txt'), 'utf8')).toBe('yes');
  expect((await Promise.all(responded)).map((answer) => answer.accepted)).toEqual([true, true]);
  expect(requests.map((request) => [request.tool, request.options])).toEqual([
    ['write_file', ['allow_once', 'allow_always', 'reject_once', 'reject_always']],
    ['write_file', ['allow_once', 'allow_always', 'reject_once', 'reject_always']],
  ]);
  // the decisions are recorded in the session file
  const records = (await readFile(session.path ?? '', 'utf8'))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { type: string; decision?: string; source?: string });
  expect(
    records
      .filter((record) => record.type === 'permission')
      .map((record) => [record.decision, record.source]),
  ).toEqual([
    ['deny', 'approver'],
    ['allow', 'approver'],
  ]);
}

describe('lich serve --stdio', () => {
  it('speaks nothing but protocol on stdout, streams a prompt with a tool call, and exits when stdin ends', async () => {
    model.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'They say hello.', chunk_chars: 2, chunk_delay_ms: 2 },
    );
    const child = lich(['serve', '--stdio']);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    let wake: () => void = () => undefined;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      // every line on stdout is one JSON-RPC 2.0 message: JSON.parse throws otherwise
      for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
      wake();
    });
    const wait = async (match: (line: Record<string, unknown>) => boolean) => {
      for (;;) {
        const found = lines.find(match);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    };
    const send = (id: number, method: string, params: unknown) =>
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    send(1, 'initialize', { protocol_version: 1, client_info: { name: 'raw-stdio' } });
    const init = (await wait((line) => line.id === 1)) as { result: { epoch: string } };
    expect(init.result.epoch).toMatch(/./);
    send(2, 'session.new', {});
    const { result: session } = (await wait((line) => line.id === 2)) as {
      result: { session_id: string };
    };
    send(3, 'events.subscribe', { session_id: session.session_id });
    await wait((line) => line.id === 3);
    send(4, 'prompt.submit', { session_id: session.session_id, text: 'read the notes' });
    await wait(
      (line) =>
        line.method === 'event' && (line.params as { type: string }).type === 'turn.completed',
    );
    const events = lines
      .filter((line) => line.method === 'event')
      .map((line) => line.params as EventParams);
    const types = events.map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining(['turn.started', 'tool.start', 'tool.end', 'message.delta']),
    );
    const text = events
      .filter((event) => event.type === 'message.delta')
      .map((event) => (event.payload as { text: string }).text)
      .join('');
    expect(text).toBe('They say hello.');
    for (const line of lines) expect(line.jsonrpc).toBe('2.0');
    child.stdin!.end();
    expect(await exited(child)).toBe(0);
    expect(stderr).not.toMatch(/error/i);
  });

  it('asks the client before a write: permission.respond rejects, then allows, and the file follows', async () => {
    const client = await LichClient.connect({
      transport: stdio_transport({
        command: process.execPath,
        args: [LICH_BIN, 'serve', '--stdio'],
        cwd: work_dir,
        env,
        stderr: 'ignore',
        on_spawn: (child) => children.push(child),
      }),
      reconnect: false,
    });
    clients.push(client);
    await permission_round_trip(client);
  });

  it('a restarted server answers with a new epoch and truncated; the session is still there', async () => {
    model.enqueue({ text: 'first answer' }, { text: 'second answer' });
    const spawned: ChildProcess[] = [];
    const client = await LichClient.connect({
      transport: stdio_transport({
        command: process.execPath,
        args: [LICH_BIN, 'serve', '--stdio'],
        cwd: work_dir,
        env,
        stderr: 'ignore',
        on_spawn: (child) => {
          spawned.push(child);
          children.push(child);
        },
      }),
      reconnect: { initial_delay_ms: 10 },
    });
    clients.push(client);
    const first_epoch = client.server.epoch;
    const { session_id } = await client.request('session.new');
    const first = until_turn_completed(client);
    await client.subscribe(session_id);
    await client.prompt(session_id, 'one');
    await first;
    const resubscribed = new Promise<SubscribeOutcome>((resolve) =>
      client.on('resubscribed', resolve),
    );
    spawned[0]!.kill('SIGKILL');
    const outcome = await resubscribed;
    expect(spawned).toHaveLength(2);
    expect(outcome).toMatchObject({ session_id, truncated: true, replayed: 0 });
    expect(outcome.epoch).not.toBe(first_epoch);
    expect(client.server.epoch).toBe(outcome.epoch);
    // the new process loaded the session from its file: history, and a prompt that goes on
    const { messages } = await client.request('session.history', { session_id });
    expect(
      messages.filter((message) => message.role !== 'system').map((message) => message.content),
    ).toEqual(['one', 'first answer']);
    const second = until_turn_completed(client);
    await client.prompt(session_id, 'two');
    const events = await second;
    expect(events.every((event) => event.epoch === outcome.epoch)).toBe(true);
    expect(events.at(-1)?.payload).toMatchObject({ final: 'second answer' });
  });
});

describe('lich serve (WebSocket)', () => {
  async function start_server(): Promise<{ child: ChildProcess; url: string }> {
    const child = lich(['serve']);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
        const match = /listening on (ws:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`lich serve exited ${code}: ${stderr}`)));
    });
    return { child, url };
  }

  it('writes a 0600 token file, prints the token, serves a client with it, and removes the file on SIGTERM', async () => {
    model.enqueue({ text: 'hi there' });
    const { child, url } = await start_server();
    const path = join(temp.path, 'run', 'lich', 'serve.json');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const file = await read_token_file(path);
    expect(file).toMatchObject({ url, pid: child.pid });
    expect(Buffer.from(file?.token ?? '', 'base64url')).toHaveLength(32);
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/rpc$/);

    const printed = lich(['serve', '--print-token']);
    let out = '';
    printed.stdout!.setEncoding('utf8').on('data', (text: string) => {
      out += text;
    });
    expect(await exited(printed)).toBe(0);
    expect(out.trim()).toBe(file?.token);

    expect(await upgrade_status(url, { authorization: 'Bearer wrong' })).toBe(401);
    expect(
      await upgrade_status(url, { authorization: `Bearer ${file?.token}`, host: 'evil.example' }),
    ).toBe(403);
    expect(await upgrade_status(`${url}?token=${file?.token}`, {})).toBe(400);

    const client = await LichClient.connect({
      transport: ws_transport({ url, token: file?.token ?? '' }),
    });
    clients.push(client);
    const { session_id } = await client.request('session.new');
    const done = until_turn_completed(client);
    await client.subscribe(session_id);
    await client.prompt(session_id, 'hello');
    expect((await done).at(-1)?.payload).toMatchObject({ final: 'hi there' });
    await client.close();

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    await expect(stat(path)).rejects.toThrow();
  });

  it('asks a real ws client before a write: permission.respond rejects, then allows', async () => {
    const { url } = await start_server();
    const file = await read_token_file(join(temp.path, 'run', 'lich', 'serve.json'));
    const client = await LichClient.connect({
      transport: ws_transport({ url, token: file?.token ?? '' }),
      reconnect: false,
    });
    clients.push(client);
    await permission_round_trip(client);
  });

  it('a permission request shows what it approves, tool.running follows the answer, and a note reaches the model (C3, S6)', async () => {
    const { url } = await start_server();
    const file = await read_token_file(join(temp.path, 'run', 'lich', 'serve.json'));
    const client = await LichClient.connect({
      transport: ws_transport({ url, token: file?.token ?? '' }),
      reconnect: false,
    });
    clients.push(client);
    model.enqueue(
      {
        tool_calls: [
          {
            name: 'edit_file',
            arguments: { path: 'notes.txt', old_text: 'hello', new_text: 'goodbye' },
          },
          { name: 'terminal', arguments: { command: 'echo one && echo two > two.txt' } },
        ],
      },
      { text: 'Done.' },
    );
    const { session_id } = await client.request('session.new', { title: 'previews' });
    client.on_event((event) => {
      if (event.session_id !== session_id || event.type !== 'permission.request') return;
      void client.request('permission.respond', {
        request_id: event.payload.request_id,
        ...(event.payload.tool === 'edit_file'
          ? { option: 'allow_once' as const }
          : { option: 'reject_once' as const, note: 'do not write files from the shell' }),
      });
    });
    await client.subscribe(session_id, { can_approve: true });
    const done = until_turn_completed(client);
    await client.prompt(session_id, 'edit and run');
    const events = (await done).filter((event) => event.session_id === session_id);
    const asked = events.flatMap((event) =>
      event.type === 'permission.request' ? [event.payload] : [],
    );
    const requests = ['edit_file', 'terminal'].map((tool) =>
      asked.find((request) => request.tool === tool),
    );
    expect(requests[0]?.preview).toMatchObject({
      kind: 'diff',
      path: 'notes.txt',
      summary: '+1 −1',
      old_text: 'hello from the notes\n',
      new_text: 'goodbye from the notes\n',
    });
    expect(requests[0]?.preview?.text).toContain('-hello from the notes');
    expect(requests[1]?.preview).toEqual({
      kind: 'command',
      text: 'echo one && echo two > two.txt',
    });
    // the edit: asked, answered, then running, then ended; the refused command never runs
    const order = events
      .filter((event) => 'tool_call_id' in event.payload || event.type.startsWith('permission'))
      .map((event) => event.type);
    const first_running = order.indexOf('tool.running');
    expect(order.indexOf('permission.resolved')).toBeLessThan(first_running);
    expect(order.indexOf('tool.start')).toBeLessThan(order.indexOf('permission.request'));
    expect(order.filter((type) => type === 'tool.running')).toHaveLength(1);
    expect(await readFile(join(work_dir, 'notes.txt'), 'utf8')).toBe('goodbye from the notes\n');
    await expect(stat(join(work_dir, 'two.txt'))).rejects.toThrow();
    const told = JSON.stringify(model.requests[1]?.body);
    expect(told).toContain('and said: do not write files from the shell');
  });

  it('refuses --host 0.0.0.0 without --allow-remote, and --print-token with no server running', async () => {
    const remote = lich(['serve', '--host', '0.0.0.0']);
    let stderr = '';
    remote.stderr!.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    expect(await exited(remote)).toBe(2);
    expect(stderr).toMatch(/--allow-remote/);
    const printed = lich(['serve', '--print-token']);
    expect(await exited(printed)).toBe(1);
  });
});

/**
 * The server over the real `SessionHost` (create_session_host over an Agent and the testkit's
 * fake OpenAI-style server), driven by real WebSocket clients: `LichClient`, a bare `ws` peer,
 * and a client in its own process that is killed mid-stream.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostEvent } from '@lich/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ws_transport } from '../src/client_transports.js';
import { LichClient } from '../src/lich_client.js';
import type { EventParams } from '../src/protocol_types.js';
import { start_ws_server, type WsServer } from '../src/ws_server.js';
import { RawPeer } from './raw_peer.js';
import { make_real_host, type RealHost } from './real_host.js';

const TOKEN = 'c'.repeat(43);
const PRINTER = fileURLToPath(new URL('./fixtures/event_printer.mjs', import.meta.url));

let real: RealHost;
let server: WsServer;
const clients: LichClient[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  real = await make_real_host();
  server = await start_ws_server({ host: real.host, token: TOKEN });
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const client of clients.splice(0)) await client.close();
  await server.close();
  await real.cleanup();
});

async function connect(): Promise<LichClient> {
  const client = await LichClient.connect({
    transport: ws_transport({ url: server.url, token: TOKEN }),
    client_info: { name: 'host-ws-test' },
  });
  clients.push(client);
  return client;
}

/** The session's events up to its `count`-th `turn.completed`. */
function completed(client: LichClient, session_id: string, count = 1): Promise<EventParams[]> {
  const events: EventParams[] = [];
  return new Promise((resolve) => {
    let seen = 0;
    client.on_event((event) => {
      if (event.session_id !== session_id) return;
      events.push(event);
      if (event.type === 'turn.completed' && ++seen === count) resolve(events.slice());
    });
  });
}

function strip(events: readonly (EventParams | HostEvent)[]): unknown[] {
  return events.map((event) => JSON.parse(JSON.stringify(event)));
}

describe('lich serve over the real host, on WebSocket', () => {
  it('streams a full prompt: deltas, a tool call, the answer; history and the session file follow', async () => {
    real.model.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'The notes say hello from the notes.', chunk_chars: 3, chunk_delay_ms: 2 },
    );
    const client = await connect();
    const session = await client.request('session.new', { title: 'full prompt' });
    const done = completed(client, session.session_id);
    await client.subscribe(session.session_id, { after_seq: 0 });
    const ticket = await client.prompt(session.session_id, 'what do the notes say?');
    expect(ticket.queued).toBe(false);
    const events = await done;
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('session.info');
    expect(types).toContain('turn.started');
    expect(types).toContain('tool.start');
    expect(types).toContain('tool.end');
    expect(types.at(-1)).toBe('turn.completed');
    const tool_end = events.find((event) => event.type === 'tool.end');
    expect(tool_end?.payload).toMatchObject({ name: 'read_file', ok: true });
    const text = events
      .filter((event) => event.type === 'message.delta')
      .map((event) => (event.payload as { text: string }).text)
      .join('');
    expect(text).toBe('The notes say hello from the notes.');
    expect(events.at(-1)?.payload).toMatchObject({
      turn_id: ticket.turn_id,
      stop_reason: 'final',
      final: 'The notes say hello from the notes.',
    });
    // seq has no gap, and the in-process reading of the same host saw the same events
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(strip(events)).toEqual(
      strip((await real.record(session.session_id)).slice(0, events.length)),
    );
    const { messages } = await client.request('session.history', {
      session_id: session.session_id,
    });
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(session.path).not.toBeNull();
    expect((await stat(session.path ?? '')).size).toBeGreaterThan(0);
    const listed = await client.request('session.list');
    expect(listed.sessions.map((info) => info.session_id)).toContain(session.session_id);
  });

  it('sends todo.updated after a todo_write call goes through', async () => {
    const todos = [
      { content: 'read the notes', status: 'in_progress' },
      { content: 'answer', status: 'pending' },
    ];
    real.model.enqueue(
      { tool_calls: [{ name: 'todo_write', arguments: { todos } }] },
      { text: 'Planned.' },
    );
    const client = await connect();
    const session = await client.request('session.new', { title: 'todo' });
    const done = completed(client, session.session_id);
    await client.subscribe(session.session_id, { after_seq: 0 });
    await client.prompt(session.session_id, 'plan it');
    const events = await done;
    const types = events.map((event) => event.type);
    expect(types.indexOf('todo.updated')).toBe(types.indexOf('tool.end') + 1);
    const updated = events.find((event) => event.type === 'todo.updated');
    expect(updated?.payload).toMatchObject({ items: todos });
  });

  it('plan mode: a write is refused until the plan is approved over plan.proposed', async () => {
    const write = {
      name: 'write_file',
      arguments: { path: 'notes.txt', content: 'after the plan' },
    };
    real.model.enqueue(
      { tool_calls: [write] },
      { tool_calls: [{ name: 'exit_plan_mode', arguments: { plan: '1. rewrite notes.txt' } }] },
      { tool_calls: [write] },
      { text: 'Done.' },
    );
    const client = await connect();
    const session = await client.request('session.new', { title: 'plan', approval_mode: 'plan' });
    expect(session.approval_mode).toBe('plan');
    const notes = join(real.temp.path, 'work', 'notes.txt');
    const seen: string[] = [];
    client.on_event((event) => {
      if (event.session_id !== session.session_id) return;
      if (event.type === 'plan.proposed') {
        seen.push(`plan: ${event.payload.plan}`);
        // nothing was written while the session planned
        void readFile(notes, 'utf8').then((text) => {
          seen.push(`notes: ${text.trim()}`);
          void client.request('permission.respond', {
            request_id: event.payload.request_id,
            option: 'allow_once',
          });
        });
      } else if (event.type === 'permission.request' && event.payload.tool === 'write_file') {
        seen.push('asked: write_file');
        void client.request('permission.respond', {
          request_id: event.payload.request_id,
          option: 'allow_once',
        });
      }
    });
    const done = completed(client, session.session_id);
    await client.subscribe(session.session_id, { after_seq: 0, can_approve: true });
    await client.prompt(session.session_id, 'rewrite the notes');
    const events = await done;
    const first_write = events.find(
      (event) => event.type === 'tool.end' && event.payload.name === 'write_file',
    );
    expect(first_write?.payload).toMatchObject({ ok: false });
    expect(seen).toEqual([
      'plan: 1. rewrite notes.txt',
      'notes: hello from the notes',
      'asked: write_file',
    ]);
    expect(await readFile(notes, 'utf8')).toBe('after the plan');
    const modes = events.flatMap((event) =>
      event.type === 'session.info' ? [event.payload.approval_mode] : [],
    );
    expect(modes.at(-1)).toBe('default');
  });

  it('gives two clients on one session every event, the same and in order', async () => {
    real.model.enqueue({ text: 'one two three four five six', chunk_chars: 2, chunk_delay_ms: 2 });
    const first = await connect();
    const second = await connect();
    const { session_id } = await first.request('session.new');
    const seen_first = completed(first, session_id);
    const seen_second = completed(second, session_id);
    await first.subscribe(session_id, { after_seq: 0 });
    await second.subscribe(session_id, { after_seq: 0 });
    await second.prompt(session_id, 'count');
    const [a, b] = await Promise.all([seen_first, seen_second]);
    expect(a.length).toBeGreaterThan(3);
    expect(strip(a)).toEqual(strip(b));
    expect(strip(a)).toEqual(strip((await real.record(session_id)).slice(0, a.length)));
  });

  it('a client killed mid-stream reconnects with after_seq and gets every missed event once, in order', async () => {
    real.model.enqueue({
      text: 'x'.repeat(600),
      chunk_chars: 2,
      chunk_delay_ms: 3,
    });
    const owner = await connect();
    const { session_id } = await owner.request('session.new');
    const all = completed(owner, session_id);
    await owner.subscribe(session_id, { after_seq: 0 });
    const env = {
      ...process.env,
      LICH_URL: server.url,
      LICH_TOKEN: TOKEN,
      LICH_SESSION: session_id,
    };
    const child = spawn(process.execPath, [PRINTER], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    const before: EventParams[] = [];
    let buffer = '';
    const killed = new Promise<void>((resolve) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          const value = JSON.parse(line) as EventParams | { subscribed: unknown };
          if ('subscribed' in value) {
            void owner.prompt(session_id, 'stream');
            continue;
          }
          before.push(value);
          if (before.length === 5) {
            child.kill('SIGKILL');
            resolve();
          }
        }
      });
    });
    await killed;
    await new Promise((resolve) => child.once('exit', resolve));
    // a new client picks up from the last event the killed one printed
    const last = before.at(-1)!;
    const resumed = await connect();
    const after: EventParams[] = [];
    const resumed_done = new Promise<void>((resolve) =>
      resumed.on_event((event) => {
        if (after.at(-1)?.type === 'turn.completed') return;
        after.push(event);
        if (event.type === 'turn.completed') resolve();
      }),
    );
    const outcome = await resumed.subscribe(session_id, { after_seq: last.seq });
    expect(outcome.truncated).toBe(false);
    await resumed_done;
    // the killed client subscribed live, so the reference starts where it did
    const reference = (await all).filter((event) => event.seq >= before[0]!.seq);
    const joined = [...before, ...after];
    expect(after.length).toBeGreaterThan(0);
    expect(joined.map((event) => event.seq)).toEqual(reference.map((event) => event.seq));
    expect(strip(joined)).toEqual(strip(reference));
  });

  it('queues a second prompt.submit to a busy session (or answers session_busy with queue: false)', async () => {
    real.model.enqueue(
      { text: 'slow first answer', chunk_chars: 1, chunk_delay_ms: 5 },
      { text: 'second answer' },
    );
    const client = await connect();
    const { session_id } = await client.request('session.new');
    const done = completed(client, session_id, 2);
    await client.subscribe(session_id);
    const first = await client.prompt(session_id, 'first');
    const refused = await client
      .prompt(session_id, 'not now', { queue: false })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'server', code_name: 'session_busy' });
    const second = await client.prompt(session_id, 'second');
    expect(second.queued).toBe(true);
    const events = await done;
    const turns = events
      .filter((event) => event.type === 'turn.started' || event.type === 'turn.completed')
      .map((event) => `${event.type}:${(event.payload as { turn_id: string }).turn_id}`);
    expect(turns).toEqual([
      `turn.started:${first.turn_id}`,
      `turn.completed:${first.turn_id}`,
      `turn.started:${second.turn_id}`,
      `turn.completed:${second.turn_id}`,
    ]);
    // the refused prompt never reached the model
    expect(real.model.requests).toHaveLength(2);
  });

  it('lists the prompts and rewinds a session (session.rewind_points, session.rewind)', async () => {
    real.model.enqueue(
      {
        tool_calls: [
          { name: 'write_file', arguments: { path: 'notes.txt', content: 'rewritten\n' } },
        ],
      },
      { text: 'written' },
      { text: 'a slow answer', chunk_chars: 1, chunk_delay_ms: 5 },
    );
    const notes = join(real.temp.path, 'work', 'notes.txt');
    const client = await connect();
    const { session_id } = await client.request('session.new', { approval_mode: 'yolo' });
    const events: EventParams[] = [];
    client.on_event((event) => events.push(event));
    const done = completed(client, session_id);
    await client.subscribe(session_id);
    await client.prompt(session_id, 'rewrite the notes');
    await done;
    expect(await readFile(notes, 'utf8')).toBe('rewritten\n');
    const { points } = await client.request('session.rewind_points', { session_id });
    expect(points).toMatchObject([
      {
        prompt: 1,
        input: 'rewrite the notes',
        files: true,
        conversation: true,
        added_lines: 1,
        removed_lines: 1,
      },
    ]);
    expect(events.map((event) => event.type)).toContain('checkpoint.created');
    const planned = await client.request('session.rewind', {
      session_id,
      prompt: 1,
      dry_run: true,
    });
    expect(planned.status).toBe('planned');
    expect(planned.files?.restored).toEqual([
      { path: 'notes.txt', action: 'update', kind: 'file' },
    ]);
    const missing = await client
      .request('session.rewind', { session_id })
      .catch((error: unknown) => error);
    expect(missing).toMatchObject({ code_name: 'invalid_params' });
    const slow = completed(client, session_id);
    await client.prompt(session_id, 'something slow');
    const busy = await client
      .request('session.rewind', { session_id, prompt: 1 })
      .catch((error: unknown) => error);
    expect(busy).toMatchObject({ code_name: 'session_busy' });
    await slow;
    const rewound = await client.request('session.rewind', { session_id, prompt: 1 });
    expect(rewound).toMatchObject({ status: 'rewound', prompt: 1, input: 'rewrite the notes' });
    expect(await readFile(notes, 'utf8')).toBe('hello from the notes\n');
    const { messages } = await client.request('session.history', { session_id });
    expect(messages.filter((message) => message.role !== 'system')).toEqual([]);
    await expect.poll(() => events.some((event) => event.type === 'session.rewound')).toBe(true);
  });

  it('answers truncated for another epoch, and replays from after_seq within the ring', async () => {
    real.model.enqueue({ text: 'short' });
    const client = await connect();
    const { session_id } = await client.request('session.new');
    const done = completed(client, session_id);
    await client.subscribe(session_id);
    await client.prompt(session_id, 'hi');
    await done;
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    await peer.call('initialize', { protocol_version: 1, client_info: { name: 'raw' } });
    const other_epoch = await peer.call('events.subscribe', {
      session_id,
      after_seq: 1,
      epoch: 'old-epoch',
    });
    expect(other_epoch.result).toMatchObject({ truncated: true, replayed: 0 });
    const replay = await peer.call('events.subscribe', {
      session_id,
      after_seq: 0,
      epoch: real.host.epoch,
    });
    expect(replay.result).toMatchObject({ truncated: false });
    expect(peer.events().length).toBe((replay.result as { replayed: number }).replayed);
    peer.close();
  });
});

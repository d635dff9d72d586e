import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ClientTransport } from '../src/client_transports.js';
import { stream_transport, ws_transport } from '../src/client_transports.js';
import { LichClient } from '../src/lich_client.js';
import { LichRpcError } from '../src/lich_rpc_error.js';
import type { EventParams } from '../src/protocol_types.js';
import { start_stdio_server } from '../src/stdio_server.js';
import { start_ws_server, type WsServer } from '../src/ws_server.js';
import { FakeHost } from './fake_host.js';

const TOKEN = 'b'.repeat(43);

let host: FakeHost;
let server: WsServer;
const clients: LichClient[] = [];

beforeEach(async () => {
  host = new FakeHost();
  server = await start_ws_server({ host, token: TOKEN });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await server.close();
});

async function connect(
  transport: ClientTransport = ws_transport({ url: server.url, token: TOKEN }),
) {
  const client = await LichClient.connect({
    transport,
    reconnect: { initial_delay_ms: 10, max_attempts: 20 },
  });
  clients.push(client);
  return client;
}

/** A WebSocket transport whose current socket a test can cut abruptly (no close handshake). */
function cuttable(): ClientTransport & { cut(): void } {
  let socket: WebSocket | undefined;
  return {
    description: 'cuttable',
    cut: () => socket?.terminate(),
    connect: async (handlers) => {
      const made = new WebSocket(server.url, { headers: { authorization: `Bearer ${TOKEN}` } });
      socket = made;
      await new Promise((resolve, reject) => {
        made.once('open', resolve);
        made.once('error', reject);
      });
      made.on('message', (data) => handlers.line(data.toString()));
      made.once('close', (code) => handlers.closed({ code, reason: 'closed' }));
      return { send: (line) => made.send(line), close: () => made.close() };
    },
  };
}

function wait_for(events: EventParams[], match: (event: EventParams) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (events.some(match)) {
        clearInterval(check);
        resolve();
      }
    }, 2);
  });
}

describe('LichClient', () => {
  it('makes typed requests and rejects with the server error code', async () => {
    const client = await connect();
    expect(client.server.epoch).toBe(host.epoch);
    const session = await client.request('session.new', { title: 'hello' });
    expect(session.title).toBe('hello');
    expect((await client.request('session.list')).sessions).toHaveLength(1);
    const error = await client
      .request('session.get', { session_id: 'nope' })
      .catch((caught: unknown) => caught);
    expect(LichRpcError.is_instance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'server', code_name: 'unknown_session' });
  });

  it('fails to connect with a wrong token', async () => {
    await expect(
      LichClient.connect({
        transport: ws_transport({ url: server.url, token: 'wrong' }),
        reconnect: false,
      }),
    ).rejects.toThrow(/401/);
  });

  it('delivers events through on_event and events(), in order', async () => {
    host.script = () => [
      { kind: 'reasoning', text: 'hmm' },
      { kind: 'delta', text: 'a' },
      { kind: 'delta', text: 'b' },
    ];
    const client = await connect();
    const { session_id } = await client.request('session.new');
    const seen: EventParams[] = [];
    client.on_event((event) => seen.push(event));
    const iterator = client.events({ session_id });
    await client.subscribe(session_id);
    await client.prompt(session_id, 'go');
    const types: string[] = [];
    for await (const event of iterator) {
      types.push(event.type);
      if (event.type === 'turn.completed') break;
    }
    expect(types).toEqual([
      'turn.started',
      'reasoning.delta',
      'message.delta',
      'message.delta',
      'turn.completed',
    ]);
    expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('after a cut connection, reconnects and receives every missed event exactly once, in order', async () => {
    host.script = () =>
      Array.from({ length: 60 }, (_, index) => [
        { kind: 'delta' as const, text: `${index} ` },
        { kind: 'wait' as const, ms: 2 },
      ]).flat();
    const transport = cuttable();
    const client = await connect(transport);
    const { session_id } = await client.request('session.new');
    const in_process: number[] = [];
    await host.subscribe(session_id, (event) => in_process.push(event.seq));
    const seen: EventParams[] = [];
    client.on_event((event) => seen.push(event));
    const resubscribed = new Promise((resolve) => client.on('resubscribed', resolve));
    await client.subscribe(session_id);
    await client.prompt(session_id, 'long');
    await wait_for(seen, (event) => event.seq >= 10);
    transport.cut();
    expect(await resubscribed).toMatchObject({ session_id, truncated: false });
    await wait_for(seen, (event) => event.type === 'turn.completed');
    const seqs = seen.map((event) => event.seq);
    expect(seqs).toEqual(in_process);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, index) => index + 1));
  });

  it('reports truncated when the server restarted (a new epoch)', async () => {
    const transport = cuttable();
    const client = await connect(transport);
    const { session_id } = await client.request('session.new');
    await client.subscribe(session_id);
    await client.prompt(session_id, 'x');
    await host.idle(session_id);
    while (client.last_seq(session_id) !== 3)
      await new Promise((resolve) => setTimeout(resolve, 2));
    // a new server on a new host that knows the same session id (as the real host reloads it)
    const restarted = new FakeHost();
    const old_session = host.sessions.get(session_id)!;
    restarted.sessions.set(session_id, { ...old_session, seq: 0, ring: [], listeners: new Set() });
    await server.close();
    server = await start_ws_server({ host: restarted, token: TOKEN, port: server.port });
    const resubscribed = new Promise((resolve) => client.on('resubscribed', resolve));
    transport.cut();
    expect(await resubscribed).toMatchObject({
      session_id,
      truncated: true,
      epoch: restarted.epoch,
    });
    expect(client.server.epoch).toBe(restarted.epoch);
    // events of the new epoch flow, from seq 1 again
    const next: EventParams[] = [];
    client.on_event((event) => next.push(event));
    await client.prompt(session_id, 'again');
    await wait_for(next, (event) => event.type === 'turn.completed');
    expect(next.map((event) => [event.epoch, event.seq])).toEqual([
      [restarted.epoch, 1],
      [restarted.epoch, 2],
      [restarted.epoch, 3],
    ]);
  });

  it('holds requests made while reconnecting and sends them once the server is back', async () => {
    const client = await connect();
    const { session_id } = await client.request('session.new');
    const states: string[] = [];
    client.on('state', (state) => states.push(state));
    const port = server.port;
    await server.close();
    while (client.state !== 'reconnecting') await new Promise((resolve) => setTimeout(resolve, 5));
    const pending = client.request('session.get', { session_id });
    await new Promise((resolve) => setTimeout(resolve, 50));
    server = await start_ws_server({ host, token: TOKEN, port });
    expect((await pending).session_id).toBe(session_id);
    expect(states).toEqual(['reconnecting', 'open']);
  });

  it('works over a pair of streams against the stdio server, U+2028 and U+2029 intact', async () => {
    const to_server = new PassThrough();
    const to_client = new PassThrough();
    const stdio = start_stdio_server({ host, input: to_server, output: to_client });
    host.script = (input) => [{ kind: 'delta', text: input }];
    const client = await connect(stream_transport({ input: to_client, output: to_server }));
    const { session_id } = await client.request('session.new');
    const seen: EventParams[] = [];
    client.on_event((event) => seen.push(event));
    await client.subscribe(session_id);
    const text = 'line\u2028separator\u2029paragraph\r\nend';
    await client.prompt(session_id, text);
    await wait_for(seen, (event) => event.type === 'turn.completed');
    expect(seen.find((event) => event.type === 'message.delta')?.payload).toMatchObject({ text });
    await client.close();
    await stdio.closed;
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/protocol_errors.js';
import { start_ws_server, type WsServer } from '../src/ws_server.js';
import { FakeHost } from './fake_host.js';
import { http_get, RawPeer, upgrade_status } from './raw_peer.js';

const TOKEN = 'a'.repeat(43);
const INIT = { protocol_version: 1, client_info: { name: 'test' } };

let host: FakeHost;
let server: WsServer;

beforeEach(async () => {
  host = new FakeHost();
  server = await start_ws_server({
    host,
    token: TOKEN,
    max_message_bytes: 64 * 1024,
    // these peers authenticate on the upgrade: the small limit is theirs too
    max_authenticated_message_bytes: 64 * 1024,
    auth: { burst: 5, refill_ms: 200 },
  });
});

afterEach(async () => {
  await server.close();
});

async function ready_peer(): Promise<RawPeer> {
  const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
  const answer = await peer.call('initialize', INIT);
  expect(answer.result?.epoch).toBe(host.epoch);
  return peer;
}

describe('start_ws_server', () => {
  it('binds loopback only, both families, and says where in its url', () => {
    expect(server.url).toBe(`ws://127.0.0.1:${server.port}/rpc`);
    expect(server.addresses).toContain('127.0.0.1');
    for (const address of server.addresses) expect(['127.0.0.1', '::1']).toContain(address);
  });

  it('refuses a non-loopback address without allow_remote', async () => {
    await expect(start_ws_server({ host, token: TOKEN, hostname: '0.0.0.0' })).rejects.toThrow(
      /allow_remote/,
    );
  });

  it('answers /health with { ok: true } only, without a token and without CORS headers', async () => {
    const health = await http_get(server.port, '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ ok: true });
    expect(Object.keys(health.headers).filter((name) => name.startsWith('access-control'))).toEqual(
      [],
    );
    const other = await http_get(server.port, '/sessions', { origin: 'http://localhost:3000' });
    expect(other.status).toBe(403);
    expect(Object.keys(other.headers).filter((name) => name.startsWith('access-control'))).toEqual(
      [],
    );
  });

  it('initializes with the bearer header and lists methods, events and limits', async () => {
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    const answer = await peer.call('initialize', INIT);
    expect(answer.result).toMatchObject({
      protocol_version: 1,
      epoch: host.epoch,
      limits: { max_message_bytes: 64 * 1024 },
    });
    expect(answer.result?.methods).toContain('prompt.submit');
    expect(answer.result?.events).toContain('message.delta');
    peer.close();
  });

  it('initializes with the token in initialize when no header was sent', async () => {
    const peer = await RawPeer.open(server.url);
    const answer = await peer.call('initialize', { ...INIT, token: TOKEN });
    expect(answer.result?.epoch).toBe(host.epoch);
    expect((await peer.call('ping')).result).toEqual({});
    peer.close();
  });

  it('streams a prompt to a subscriber and answers a permission request', async () => {
    host.script = () => [
      { kind: 'delta', text: 'Hel' },
      { kind: 'tool', name: 'terminal', args: { command: 'ls' }, ask: true },
      { kind: 'delta', text: 'lo' },
    ];
    const peer = await ready_peer();
    const session = (await peer.call('session.new', { title: 't' })).result as {
      session_id: string;
    };
    const subscribed = await peer.call('events.subscribe', { session_id: session.session_id });
    expect(subscribed.result).toEqual({ replayed: 0, truncated: false, epoch: host.epoch });
    const ticket = await peer.call('prompt.submit', { session_id: session.session_id, text: 'hi' });
    expect(ticket.result).toMatchObject({ queued: false });
    const request = await peer.wait((message) => message.params?.type === 'permission.request');
    const respond = await peer.call('permission.respond', {
      request_id: request.params?.payload.request_id,
      option: 'allow_once',
    });
    expect(respond.result).toEqual({ accepted: true });
    await peer.wait((message) => message.params?.type === 'turn.completed');
    const events = peer.events();
    expect(events.map((event) => event.type)).toEqual([
      'turn.started',
      'message.delta',
      'permission.request',
      'permission.resolved',
      'tool.start',
      'tool.end',
      'message.delta',
      'turn.completed',
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    peer.close();
  });
});

describe('hostile peers', () => {
  it('refuses a wrong bearer token (401) and a wrong or missing token in initialize, running nothing', async () => {
    expect(await upgrade_status(server.url, { authorization: 'Bearer wrong' })).toBe(401);
    const peer = await RawPeer.open(server.url);
    const wrong = await peer.call('initialize', { ...INIT, token: 'wrong' });
    expect(wrong.error?.code).toBe(ERROR_CODES.unauthenticated);
    expect(await peer.closed).toBe(1008);
    const none = await RawPeer.open(server.url);
    const missing = await none.call('initialize', INIT);
    expect(missing.error?.code).toBe(ERROR_CODES.unauthenticated);
    await none.closed;
    expect(host.sessions.size).toBe(0);
  });

  it('refuses Host: evil.example before the upgrade (403), and on plain requests', async () => {
    const headers = { host: 'evil.example', authorization: `Bearer ${TOKEN}` };
    expect(await upgrade_status(server.url, headers)).toBe(403);
    expect(
      await upgrade_status(server.url, {
        ...headers,
        host: `127.0.0.1.evil.example:${server.port}`,
      }),
    ).toBe(403);
    expect(
      await upgrade_status(server.url, { ...headers, host: `127.0.0.1:${server.port + 1}` }),
    ).toBe(403);
    expect((await http_get(server.port, '/health', { host: 'evil.example' })).status).toBe(403);
    for (const host_header of [`localhost:${server.port}`, `[::1]:${server.port}`]) {
      expect(await upgrade_status(server.url, { ...headers, host: host_header })).toBe(101);
    }
  });

  it('refuses Origin: http://evil.example (403) even with the right token', async () => {
    const status = await upgrade_status(server.url, {
      origin: 'http://evil.example',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(status).toBe(403);
    expect(
      await upgrade_status(server.url, { origin: 'null', authorization: `Bearer ${TOKEN}` }),
    ).toBe(403);
  });

  it('takes an Origin only when it is on allow_origins', async () => {
    const allowing = await start_ws_server({
      host,
      token: TOKEN,
      allow_origins: ['http://localhost:5173'],
    });
    try {
      const headers = { authorization: `Bearer ${TOKEN}` };
      expect(
        await upgrade_status(allowing.url, { ...headers, origin: 'http://localhost:5173' }),
      ).toBe(101);
      expect(
        await upgrade_status(allowing.url, { ...headers, origin: 'http://localhost:5174' }),
      ).toBe(403);
    } finally {
      await allowing.close();
    }
  });

  it('refuses a token in the query string (400), without checking it', async () => {
    const status = await upgrade_status(`${server.url}?token=${TOKEN}`, {});
    expect(status).toBe(400);
    expect(server.auth.failures).toBe(0);
  });

  it('answers a message over the limit payload_too_large, and closes on one far over (1009)', async () => {
    const peer = await ready_peer();
    peer.send_text(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'ping',
        params: { pad: 'x'.repeat(70_000) },
      }),
    );
    const answer = await peer.wait((message) => message.error !== undefined);
    expect(answer).toMatchObject({ id: null, error: { code: ERROR_CODES.payload_too_large } });
    expect((await peer.call('ping')).result).toEqual({});
    peer.send_text('x'.repeat(200_000));
    expect(await peer.closed).toBe(1009);
  });

  it('answers malformed JSON, a batch, an unknown method and a binary frame with their errors', async () => {
    const peer = await ready_peer();
    peer.send_text('{"jsonrpc":"2.0","id":1,');
    expect((await peer.wait((message) => message.error?.code === -32700)).id).toBe(null);
    peer.send_text(JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'session.new' }]));
    await peer.wait((message) => message.error?.code === ERROR_CODES.invalid_request);
    const unknown = await peer.call('shell.exec', { command: 'touch /tmp/x' });
    expect(unknown.error?.code).toBe(ERROR_CODES.method_not_found);
    const proto = await peer.call('__proto__');
    expect(proto.error?.code).toBe(ERROR_CODES.method_not_found);
    peer.socket.send(Buffer.from('{}'), { binary: true });
    await peer.wait((message) => /binary/.test(message.error?.message ?? ''));
    expect(host.sessions.size).toBe(0);
    peer.close();
  });

  it('answers a method before initialize not_initialized, and runs nothing', async () => {
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    const early = await peer.call('session.new', {});
    expect(early.error?.code).toBe(ERROR_CODES.not_initialized);
    expect(host.sessions.size).toBe(0);
    expect((await peer.call('initialize', INIT)).result?.epoch).toBe(host.epoch);
    expect((await peer.call('initialize', INIT)).error?.code).toBe(ERROR_CODES.not_initialized);
    peer.close();
  });

  it('closes a connection that never initializes', async () => {
    const quick = await start_ws_server({ host, token: TOKEN, initialize_timeout_ms: 100 });
    try {
      const peer = await RawPeer.open(quick.url);
      expect(await peer.closed).toBe(1008);
    } finally {
      await quick.close();
    }
  });

  it('rate-limits 1,000 failed attempts, while the right token still gets in', async () => {
    const statuses = new Map<number, number>();
    for (let batch = 0; batch < 20; batch += 1) {
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          upgrade_status(server.url, { authorization: 'Bearer wrong' }),
        ),
      );
      for (const status of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    // every attempt is compared; past the budget (burst 5, one more per 200 ms) it gets 429
    expect(server.auth.failures).toBe(1000);
    expect(statuses.get(429)).toBeGreaterThan(950);
    expect((statuses.get(401) ?? 0) + (statuses.get(429) ?? 0)).toBe(1000);
    // a wrong token through initialize: refused (rate_limited while over the budget, which
    // refills with time), that connection closed
    const guesser = await RawPeer.open(server.url);
    const refused = await guesser.call('initialize', { ...INIT, token: 'wrong' });
    expect([ERROR_CODES.rate_limited, ERROR_CODES.unauthenticated]).toContain(refused.error?.code);
    await guesser.closed;
    // the right token, at once, both ways
    const peer = await RawPeer.open(server.url);
    expect((await peer.call('initialize', { ...INIT, token: TOKEN })).result?.epoch).toBe(
      host.epoch,
    );
    peer.close();
    const peer_after = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    expect((await peer_after.call('initialize', INIT)).result?.epoch).toBe(host.epoch);
    peer_after.close();
  });

  it('queues a second prompt.submit to a busy session, or answers session_busy with queue: false', async () => {
    host.script = (input) =>
      input === 'first'
        ? [{ kind: 'gate' }, { kind: 'delta', text: '1' }]
        : [{ kind: 'delta', text: '2' }];
    const peer = await ready_peer();
    const { session_id } = (await peer.call('session.new', {})).result as { session_id: string };
    await peer.call('events.subscribe', { session_id });
    const first = await peer.call('prompt.submit', { session_id, text: 'first' });
    expect(first.result).toMatchObject({ queued: false });
    const refused = await peer.call('prompt.submit', { session_id, text: 'second', queue: false });
    expect(refused.error?.code).toBe(ERROR_CODES.session_busy);
    const queued = await peer.call('prompt.submit', { session_id, text: 'second' });
    expect(queued.result).toMatchObject({ queued: true });
    host.release();
    await peer.wait(
      (message) =>
        message.params?.type === 'turn.completed' &&
        message.params.payload.turn_id === queued.result?.turn_id,
    );
    // the turns ran one after the other, never interleaved
    const order = peer
      .events()
      .filter((event) => event.type === 'turn.started' || event.type === 'turn.completed')
      .map((event) => `${event.type}:${event.payload.turn_id === first.result?.turn_id ? 1 : 2}`);
    expect(order).toEqual([
      'turn.started:1',
      'turn.completed:1',
      'turn.started:2',
      'turn.completed:2',
    ]);
    expect(host.prompts).toEqual(['first', 'second']);
    peer.close();
  });

  it('answers a prompt sent again with the same client_request_id with the first ticket', async () => {
    const peer = await ready_peer();
    const { session_id } = (await peer.call('session.new', {})).result as { session_id: string };
    const params = { session_id, text: 'once', client_request_id: 'r-1' };
    const [a, b] = await Promise.all([
      peer.call('prompt.submit', params),
      peer.call('prompt.submit', params),
    ]);
    expect(a.result?.turn_id).toBe(b.result?.turn_id);
    expect(host.prompts).toEqual(['once']);
    peer.close();
  });

  it('maps an unknown session to unknown_session and bad params to invalid_params', async () => {
    const peer = await ready_peer();
    expect((await peer.call('session.get', { session_id: 'nope' })).error?.code).toBe(
      ERROR_CODES.unknown_session,
    );
    expect((await peer.call('session.get', {})).error?.code).toBe(ERROR_CODES.invalid_params);
    expect(
      (await peer.call('permission.respond', { request_id: 'x', option: 'sure' })).error?.code,
    ).toBe(ERROR_CODES.invalid_params);
    peer.close();
  });
});

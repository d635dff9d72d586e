/**
 * Findings X9, X10 and X14 with a real `ws` client: failed tokens never lock out the right one,
 * an unauthenticated peer is cut at its first message that is not `initialize`, a flood is
 * handled a few lines per turn so another client is answered in between, and a request with two
 * `Host` headers is refused.
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE_CODES } from '../src/protocol_errors.js';
import { MAX_LINES_PER_FRAME, start_ws_server, type WsServer } from '../src/ws_server.js';
import { FakeHost } from './fake_host.js';
import { RawPeer } from './raw_peer.js';

const TOKEN = 'b'.repeat(43);
const INIT = { protocol_version: 1, client_info: { name: 'test' } };

let host: FakeHost;
let server: WsServer;

beforeEach(async () => {
  host = new FakeHost();
  server = await start_ws_server({ host, token: TOKEN, auth: { burst: 3, refill_ms: 60_000 } });
});

afterEach(async () => {
  await server.close();
});

/** The status of an upgrade with `token`: 101 when it opened. */
async function upgrade(token: string): Promise<number> {
  try {
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${token}` });
    peer.socket.close();
    return 101;
  } catch (error) {
    return Number(/HTTP (\d+)/.exec(String(error))?.[1] ?? 0);
  }
}

/** `count` ping requests, one per line, ids from `first`. */
function pings(first: number, count: number): string {
  const lines: string[] = [];
  for (let id = first; id < first + count; id++) {
    lines.push(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
  }
  return lines.join('\n');
}

describe('failed tokens (X9)', () => {
  it('slow only the attempts that fail: the right token always gets in', async () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      expect([401, 429]).toContain(await upgrade('wrong'));
    }
    for (let round = 0; round < 6; round++) {
      expect([401, 429]).toContain(await upgrade('wrong'));
      expect(await upgrade(TOKEN)).toBe(101);
    }
    // the right token in initialize gets in as well
    const peer = await RawPeer.open(server.url);
    const answer = await peer.call('initialize', { ...INIT, token: TOKEN });
    expect(answer.result?.epoch).toBe(host.epoch);
    peer.socket.close();
  });
});

describe('a flood (X10)', () => {
  it('from a peer without a token ends at its first message that is not initialize', async () => {
    const peer = await RawPeer.open(server.url);
    for (let frame = 0; frame < 5; frame++) peer.socket.send(pings(frame * 200, 200));
    const code = await peer.closed;
    expect(code).toBe(CLOSE_CODES.policy_violation);
    expect(peer.messages).toHaveLength(1);
    expect(peer.messages[0]?.error?.message).toMatch(/initialize/);
  });

  it('in one frame is refused whole past the per-frame cap', async () => {
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    await peer.call('initialize', INIT);
    peer.socket.send(pings(1_000, MAX_LINES_PER_FRAME * 4));
    await peer.wait_for((messages) => messages.length >= 2);
    const refused = peer.messages[1];
    expect(refused?.error?.message).toMatch(/at most \d+ messages/);
    // nothing of that frame was answered
    expect(peer.messages.filter((message) => Number(message.id) >= 1_000)).toEqual([]);
    peer.socket.close();
  });

  it('is handled a few lines per turn: another client is answered before the flood is', async () => {
    const flooder = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    await flooder.call('initialize', INIT);
    const other = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    await other.call('initialize', INIT);
    const frames = 40;
    for (let frame = 0; frame < frames; frame++) {
      flooder.socket.send(pings(10_000 + frame * MAX_LINES_PER_FRAME, MAX_LINES_PER_FRAME));
    }
    // wait until the flood is being answered, then ask
    await flooder.wait_for((messages) => messages.length > 1 + 100);
    const answered = await other.call('ping', {});
    expect(answered.error).toBeUndefined();
    const flood_total = frames * MAX_LINES_PER_FRAME;
    expect(flooder.messages.length - 1).toBeLessThan(flood_total);
    await flooder.wait_for((messages) => messages.length >= 1 + flood_total);
    flooder.socket.close();
    other.socket.close();
  });
});

describe('two Host headers (X14)', () => {
  it('are refused with 400 before anything else', async () => {
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(
          [
            'GET /rpc HTTP/1.1',
            `Host: 127.0.0.1:${server.port}`,
            'Host: evil.example',
            'Connection: Upgrade',
            'Upgrade: websocket',
            'Sec-WebSocket-Version: 13',
            'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
            `Authorization: Bearer ${TOKEN}`,
            '',
            '',
          ].join('\r\n'),
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(response).toMatch(/more than one Host header/);
  });
});

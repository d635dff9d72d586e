/**
 * How large a picture a serve client can send: a connection that showed its token on the upgrade
 * (as `LichClient` does) may send messages with a picture of `max_image_bytes` in them; one that
 * shows it only in `initialize` keeps the small `max_message_bytes`, so a peer without a token
 * never makes the server hold a large frame.
 */
import { tiny_png } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { start_ws_server, type WsServer } from '../src/ws_server.js';
import { RawPeer } from './raw_peer.js';
import { make_real_host, type RealHost } from './real_host.js';

const TOKEN = 'j'.repeat(43);

let real: RealHost;
let server: WsServer;

beforeEach(async () => {
  real = await make_real_host();
  server = await start_ws_server({ host: real.host, token: TOKEN });
});

afterEach(async () => {
  await server.close();
  await real.cleanup();
});

/** A 3 MB PNG (a 1×1 picture and padding): over 1 MiB as a message, under the picture cap. */
function big_png(): string {
  return Buffer.concat([tiny_png(), Buffer.alloc(3_000_000)]).toString('base64');
}

describe('picture sizes over lich serve', () => {
  it('takes a 3 MB picture from a peer authenticated on the upgrade', async () => {
    const peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    try {
      const init = await peer.call('initialize', {
        protocol_version: 1,
        client_info: { name: 'a' },
      });
      const limits = (init.result as { limits: Record<string, number> }).limits;
      expect(limits.max_message_bytes).toBe(1024 * 1024);
      expect(limits.max_authenticated_message_bytes).toBeGreaterThan(27 * 1024 * 1024);
      real.model.enqueue({ text: 'a big pixel' });
      const session = await peer.call('session.new', {});
      const { session_id } = session.result as { session_id: string };
      const data = big_png();
      const answer = await peer.call('prompt.submit', {
        session_id,
        text: 'look',
        images: [{ media_type: 'image/png', data }],
      });
      expect(answer.error).toBeUndefined();
      await real.model.wait_for_requests(1);
      expect(JSON.stringify(real.model.requests[0]?.body)).toContain(data.slice(0, 64));
    } finally {
      peer.close();
    }
  });

  it('keeps a peer that shows its token only in initialize to the small limit', async () => {
    const peer = await RawPeer.open(server.url);
    try {
      await peer.call('initialize', {
        protocol_version: 1,
        client_info: { name: 'b' },
        token: TOKEN,
      });
      peer.send_text(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 99,
          method: 'prompt.submit',
          params: {
            session_id: 'x',
            text: 'look',
            images: [{ media_type: 'image/png', data: big_png() }],
          },
        }),
      );
      // the frame is over what the server reads before a token: the socket is closed (1009)
      expect(await peer.closed).toBe(1009);
      expect(real.model.requests).toHaveLength(0);
    } finally {
      peer.close();
    }
  });
});

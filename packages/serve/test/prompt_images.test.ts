/**
 * `prompt.submit` with pictures, over the real `SessionHost` and the testkit's fake OpenAI-style
 * server, driven by a bare `ws` peer: the picture reaches the model's request as an `image_url`
 * part; pictures that are not what they claim, too large, or of another type are refused
 * `invalid_params` naming what is wrong, and nothing runs.
 */
import { TINY_PNG_BASE64 } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ws_transport } from '../src/client_transports.js';
import { LichClient } from '../src/lich_client.js';
import { start_ws_server, type WsServer } from '../src/ws_server.js';
import { RawPeer } from './raw_peer.js';
import { make_real_host, type RealHost } from './real_host.js';

const TOKEN = 'i'.repeat(43);

let real: RealHost;
let server: WsServer;
let peer: RawPeer;

beforeEach(async () => {
  real = await make_real_host();
  server = await start_ws_server({ host: real.host, token: TOKEN, max_image_bytes: 1024 });
  peer = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
  await peer.call('initialize', { protocol_version: 1, client_info: { name: 'images' } });
});

afterEach(async () => {
  peer.close();
  await server.close();
  await real.cleanup();
});

async function new_session(): Promise<string> {
  const answer = await peer.call('session.new', {});
  return (answer.result as { session_id: string }).session_id;
}

describe('prompt.submit with images', () => {
  it('sends the picture to the model with the text, and reports the image cap', async () => {
    const init = await RawPeer.open(server.url, { authorization: `Bearer ${TOKEN}` });
    const limits = await init.call('initialize', {
      protocol_version: 1,
      client_info: { name: 'x' },
    });
    expect(limits.result).toMatchObject({ limits: { max_image_bytes: 1024 } });
    init.close();

    real.model.enqueue({ text: 'a single red pixel' });
    const session_id = await new_session();
    const answer = await peer.call('prompt.submit', {
      session_id,
      text: 'what is in this picture?',
      images: [{ media_type: 'image/png', data: TINY_PNG_BASE64, name: 'dot.png' }],
    });
    expect(answer.error).toBeUndefined();
    await real.model.wait_for_requests(1);
    const body = real.model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.find((message) => message.role === 'user');
    expect(user?.content).toEqual([
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
    await expect
      .poll(async () => (await real.host.get(session_id)).busy, { timeout: 5000 })
      .toBe(false);
    const history = await peer.call('session.history', { session_id });
    const messages = (history.result as { messages: { role: string; content: unknown }[] })
      .messages;
    expect(messages.find((message) => message.role === 'user')?.content).toMatchObject([
      { type: 'text', text: 'what is in this picture?' },
      { type: 'image', media_type: 'image/png', name: 'dot.png', width: 1, height: 1 },
    ]);
  });

  it('run.interrupt gives back the pictures of a queued prompt, as prompt.submit takes them', async () => {
    real.model.enqueue(
      { text: 'a long answer that takes its time', chunk_chars: 2, chunk_delay_ms: 100 },
      { text: 'a pixel' },
    );
    const session_id = await new_session();
    await peer.call('prompt.submit', { session_id, text: 'first' });
    await real.model.wait_for_requests(1);
    const picture = { media_type: 'image/png', data: TINY_PNG_BASE64, name: 'dot.png' };
    const queued = await peer.call('prompt.submit', {
      session_id,
      text: 'and this?',
      images: [picture],
    });
    expect(queued.result).toMatchObject({ queued: true });
    const taken = await peer.call('run.interrupt', { session_id });
    expect(taken.result).toEqual({
      aborted: true,
      queued: ['and this?'],
      queued_images: [[picture]],
    });
    await expect
      .poll(async () => (await real.host.get(session_id)).busy, { timeout: 5000 })
      .toBe(false);
    // sent again as given back, it reaches the model whole
    const [text] = (taken.result as { queued: string[] }).queued;
    const [images] = (taken.result as { queued_images: unknown[][] }).queued_images;
    await peer.call('prompt.submit', { session_id, text, images });
    await real.model.wait_for_requests(2);
    const body = real.model.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'and this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('LichClient.prompt sends images', async () => {
    real.model.enqueue({ text: 'a pixel' });
    const client = await LichClient.connect({
      transport: ws_transport({ url: server.url, token: TOKEN }),
      client_info: { name: 'images-client' },
    });
    try {
      const { session_id } = await client.request('session.new', {});
      await client.prompt(session_id, 'and this?', {
        images: [{ media_type: 'image/png', data: TINY_PNG_BASE64 }],
      });
      await real.model.wait_for_requests(1);
      const body = real.model.requests[0]?.body as {
        messages: { role: string; content: unknown }[];
      };
      expect(body.messages.find((message) => message.role === 'user')?.content).toEqual([
        { type: 'text', text: 'and this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
      ]);
    } finally {
      await client.close();
    }
  });

  it('takes a picture without text', async () => {
    real.model.enqueue({ text: 'a pixel' });
    const session_id = await new_session();
    const answer = await peer.call('prompt.submit', {
      session_id,
      images: [{ media_type: 'image/png', data: TINY_PNG_BASE64 }],
    });
    expect(answer.error).toBeUndefined();
    await real.model.wait_for_requests(1);
    const body = real.model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('refuses a wrong media type, a foreign type, bytes that are no picture, and one over the cap', async () => {
    const session_id = await new_session();
    const refusal = async (image: unknown): Promise<string | undefined> => {
      const answer = await peer.call('prompt.submit', {
        session_id,
        text: 'look',
        images: [image],
      });
      expect(answer.error?.code).toBe(-32602);
      return answer.error?.message;
    };
    expect(await refusal({ media_type: 'image/jpeg', data: TINY_PNG_BASE64 })).toBe(
      'prompt.submit: images[0]: the picture was sent as image/jpeg but its bytes are image/png',
    );
    expect(await refusal({ media_type: 'image/svg+xml', data: TINY_PNG_BASE64 })).toMatch(
      /^prompt\.submit: images\[0\]: "image\/svg\+xml" is not a picture type taken/,
    );
    expect(
      await refusal({
        media_type: 'image/png',
        data: Buffer.from('plain text').toString('base64'),
      }),
    ).toBe('prompt.submit: images[0]: the bytes are not a PNG, JPEG, GIF or WebP picture');
    expect(await refusal({ media_type: 'image/png', data: 'A'.repeat(4000) })).toBe(
      'prompt.submit: images[0]: the picture is 2.9 KB, over the limit of 1 KB',
    );
    expect(await refusal({ media_type: 'image/png' })).toMatch(
      /images\[0\] must be \{ media_type: string, data: string \(base64\)/,
    );
    expect(real.model.requests).toHaveLength(0);
    expect((await real.host.get(session_id)).busy).toBe(false);
  });
});

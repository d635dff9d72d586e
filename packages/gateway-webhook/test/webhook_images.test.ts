/**
 * Pictures through the webhook gateway: signed HTTP in, the GatewayBus, the real SessionHost over
 * an Agent talking to the testkit's fake OpenAI server. A base64 picture reaches the model's
 * request; a picture URL is refused unless its host is on `image_url_hosts`, and a listed host
 * that is loopback (127.0.0.1) is still refused by the SSRF guard and never contacted; a
 * non-picture type is refused with a clear answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, create_session_host, make_config } from '@lich/agent';
import { GatewayBus, memory_store } from '@lich/gateway';
import {
  type FakeServer,
  make_temp_dir,
  start_openai_server,
  type TempDir,
  TINY_PNG_BASE64,
  tiny_png,
} from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decode_webhook_secret } from '../src/standard_webhooks.js';
import { WebhookAdapter } from '../src/webhook_adapter.js';
import { post_signed, SECRET } from './webhook_client.js';

const KEY = decode_webhook_secret(SECRET);

let temp: TempDir;
let model: FakeServer;
/** A picture host on loopback: it must never be asked. */
let picture_host: Server;
let picture_hits: string[];
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-webhook-images-' });
  model = await start_openai_server({ respond: () => ({ text: 'I see one red pixel.' }) });
  picture_hits = [];
  picture_host = createServer((request, response) => {
    picture_hits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'image/png' }).end(tiny_png());
  });
  await new Promise<void>((resolve) => picture_host.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await new Promise<void>((resolve) => picture_host.close(() => resolve()));
  await model.close();
  await temp.cleanup();
});

async function start_gateway(options: { image_url_hosts?: string[] } = {}): Promise<string> {
  const agent = new Agent({
    config: make_config({
      work_dir: temp.path,
      providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
    }),
    env: {},
    on_warning: () => undefined,
  });
  const host = create_session_host({ agent, on_warning: () => undefined });
  const adapter = new WebhookAdapter({
    key: KEY,
    port: 0,
    max_body_bytes: 64 * 1024,
    max_image_bytes: 4096,
    ...(options.image_url_hosts === undefined ? {} : { image_url_hosts: options.image_url_hosts }),
  });
  const bus = new GatewayBus({
    host,
    adapter,
    access: { allow_users: ['u1'] },
    store: memory_store(),
  });
  await bus.start();
  await adapter.start(bus);
  cleanups.push(async () => {
    await adapter.stop_intake();
    await bus.drain({ deadline_ms: 2000 });
    await host.shutdown({ deadline_ms: 1000 });
    await bus.close();
    await adapter.close();
  });
  return adapter.url;
}

const ask = (images: unknown[], text = 'what is wrong here') => ({
  chat_id: 'chat-1',
  sender: { id: 'u1' },
  text,
  images,
});

function user_content(): unknown {
  const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
  return body.messages.find((message) => message.role === 'user')?.content;
}

describe('webhook pictures', () => {
  it('sends a base64 picture to the model with the text', async () => {
    const url = await start_gateway();
    const answer = await post_signed(
      url,
      KEY,
      ask([{ media_type: 'image/png', data: TINY_PNG_BASE64, name: 'shot.png' }]),
    );
    expect(answer).toMatchObject({
      status: 200,
      body: { status: 'answered', reply: 'I see one red pixel.' },
    });
    expect(user_content()).toEqual([
      { type: 'text', text: 'what is wrong here' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('refuses a non-picture type, and a picture that is not its type, with a clear 400', async () => {
    const url = await start_gateway();
    const pdf = await post_signed(
      url,
      KEY,
      ask([{ media_type: 'application/pdf', data: Buffer.from('%PDF-1.7').toString('base64') }]),
    );
    expect(pdf).toMatchObject({
      status: 400,
      body: {
        status: 'invalid',
        error:
          'images[0]: "application/pdf" is not a picture type taken (image/png, image/jpeg, image/gif, image/webp)',
      },
    });
    const liar = await post_signed(
      url,
      KEY,
      ask([{ media_type: 'image/gif', data: TINY_PNG_BASE64 }]),
    );
    expect(liar).toMatchObject({
      status: 400,
      body: { error: 'images[0]: the picture was sent as image/gif but its bytes are image/png' },
    });
    expect(model.requests).toHaveLength(0);
  });

  it('refuses picture URLs when no host is allowed, without fetching', async () => {
    const url = await start_gateway();
    const { port } = picture_host.address() as AddressInfo;
    const answer = await post_signed(url, KEY, ask([{ url: `http://127.0.0.1:${port}/a.png` }]));
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: 'images[0]: pictures are not fetched from URLs here; send them as base64 data',
      },
    });
    expect(picture_hits).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a URL to 127.0.0.1 even when the operator lists that host: the SSRF guard', async () => {
    const url = await start_gateway({ image_url_hosts: ['127.0.0.1'] });
    const { port } = picture_host.address() as AddressInfo;
    const only_picture = await post_signed(
      url,
      KEY,
      ask([{ url: `http://127.0.0.1:${port}/a.png` }], ''),
    );
    expect(only_picture.status).toBe(400);
    expect(String(only_picture.body.error)).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/a\.png: Refused: port \d+ of 127\.0\.0\.1/,
    );
    const with_text = await post_signed(url, KEY, ask([{ url: 'http://127.0.0.1/a.png' }]));
    expect(with_text).toMatchObject({
      status: 200,
      body: {
        status: 'answered',
        refused: [
          {
            what: 'http://127.0.0.1/a.png',
            why: expect.stringMatching(/^Refused: 127\.0\.0\.1 is .*loopback/),
          },
        ],
      },
    });
    expect(picture_hits).toEqual([]);
    // the text went on alone
    expect(user_content()).toBe('what is wrong here');
  });
});

/**
 * The webhook adapter over real HTTP, in front of a real GatewayBus (over the bus's fake
 * SessionHost: the end-to-end tests with the real host are in webhook_e2e.test.ts).
 */

import { get } from 'node:http';
import { GatewayBus, memory_store } from '@lich/gateway';
import { FakeSessionHost } from '@lich/testkit/session_host';
import { afterEach, describe, expect, it } from 'vitest';
import { decode_webhook_secret, signed_headers, verify_webhook } from '../src/standard_webhooks.js';
import { WebhookAdapter, type WebhookAdapterOptions } from '../src/webhook_adapter.js';
import {
  type CallbackServer,
  post_raw,
  post_signed,
  SECRET,
  start_callback_server,
} from './webhook_client.js';

const KEY = decode_webhook_secret(SECRET);
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: Partial<WebhookAdapterOptions> = {}, host = new FakeSessionHost()) {
  const adapter = new WebhookAdapter({ key: KEY, port: 0, ...options });
  const bus = new GatewayBus({
    host,
    adapter,
    access: { allow_users: ['u1'] },
    store: memory_store(),
    rate_limit: false,
  });
  await bus.start();
  await adapter.start(bus);
  cleanups.push(() => adapter.close());
  return { adapter, bus, host, url: adapter.url };
}

async function callbacks(statuses: number[] = []): Promise<CallbackServer> {
  const server = await start_callback_server(statuses);
  cleanups.push(() => server.close());
  return server;
}

const hello = { chat_id: 'chat-1', sender: { id: 'u1', name: 'Ann' }, text: 'hello' };

describe('the webhook adapter', () => {
  it('binds 127.0.0.1 by default', async () => {
    const { url } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
  });

  it('answers a valid signed POST with the reply (sync)', async () => {
    const { url, host } = await start();
    const answer = await post_signed(url, KEY, hello, { id: 'msg_a' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'answered',
      message_id: 'msg_a',
      reply: 'echo: hello',
      chunks: ['echo: hello'],
    });
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['hello']);
  });

  it('refuses each bad request with its status, and none reaches the agent', async () => {
    const { url, host } = await start({ max_body_bytes: 1024 });
    const body = JSON.stringify(hello);
    // headers signing the exact bytes sent
    const good = (id: string, now_s?: number) => ({
      'content-type': 'application/json',
      ...signed_headers(KEY, id, body, now_s),
    });
    const bad_signature = { ...good('msg_1'), 'webhook-signature': `v1,${'A'.repeat(44)}` };
    expect((await post_raw(url, body, bad_signature)).status).toBe(401);
    const unsigned = { 'content-type': 'application/json' };
    expect(await post_raw(url, body, unsigned)).toMatchObject({
      status: 401,
      body: { reason: 'missing_headers' },
    });
    const stale = good('msg_2', Math.floor(Date.now() / 1000) - 301);
    expect(await post_raw(url, body, stale)).toMatchObject({
      status: 401,
      body: { reason: 'stale' },
    });
    // a replay: the same id again, even freshly signed
    expect((await post_raw(url, body, good('msg_3'))).status).toBe(200);
    expect(await post_raw(url, body, good('msg_3'))).toMatchObject({
      status: 409,
      body: { status: 'replay' },
    });
    const big = JSON.stringify({ ...hello, text: 'x'.repeat(2000) });
    const big_headers = {
      'content-type': 'application/json',
      ...signed_headers(KEY, 'msg_4', big),
    };
    expect((await post_raw(url, big, big_headers)).status).toBe(413);
    const text = 'not json at all';
    const text_headers = signed_headers(KEY, 'msg_5', text);
    expect(
      (await post_raw(url, text, { ...text_headers, 'content-type': 'text/plain' })).status,
    ).toBe(415);
    expect(
      await post_raw(url, text, { ...text_headers, 'content-type': 'application/json' }),
    ).toMatchObject({ status: 400, body: { error: 'the body is not JSON' } });
    const missing = await post_signed(url, KEY, { chat_id: 'c', text: 'no sender' });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: 'sender.id must be an id string' },
    });
    // only the one good request reached the agent
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['hello']);
  });

  it('answers 405 to another method and 404 to another path', async () => {
    const { url } = await start();
    const status = await new Promise<number>((resolve) => {
      get(url, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
    });
    expect(status).toBe(405);
    expect((await post_signed(url.replace('/webhook', '/other'), KEY, hello)).status).toBe(404);
  });

  it('says what the bus decided: ignored, duplicate, pairing notice', async () => {
    const { url } = await start();
    const stranger = await post_signed(url, KEY, { ...hello, sender: { id: 'u9' } });
    expect(stranger).toMatchObject({
      status: 200,
      body: { status: 'ignored', reason: 'not_allowed' },
    });
    const once = { ...hello, message_id: 'platform-7' };
    expect((await post_signed(url, KEY, once)).body.status).toBe('answered');
    // another delivery (another webhook-id) of the same message id is a duplicate
    expect((await post_signed(url, KEY, once)).body).toMatchObject({ status: 'duplicate' });
  });

  it('async: answers 202, then POSTs the reply signed, retried until it is taken, once', async () => {
    const receiver = await callbacks([500, 503]);
    const { url } = await start({
      mode: 'async',
      callback_url: receiver.url,
      callback_backoff_ms: 10,
    });
    const answer = await post_signed(url, KEY, hello, { id: 'msg_async' });
    expect(answer).toMatchObject({
      status: 202,
      body: { status: 'accepted', message_id: 'msg_async' },
    });
    await receiver.until(3);
    expect(receiver.received.map((item) => item.status)).toEqual([500, 503, 200]);
    const ids = new Set(receiver.received.map((item) => item.headers['webhook-id']));
    expect(ids.size).toBe(1); // one message id, retried
    for (const item of receiver.received) {
      expect(verify_webhook(KEY, item.headers, item.body).ok).toBe(true);
    }
    expect(JSON.parse(receiver.received[2]?.body ?? '{}')).toMatchObject({
      type: 'reply',
      chat_id: 'chat-1',
      in_reply_to: 'msg_async',
      text: 'echo: hello',
      index: 0,
      count: 1,
    });
    // nothing more comes for that id
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(3);
  });

  it('sync: a reply slower than the timeout is answered 202 and goes to the callback', async () => {
    const receiver = await callbacks();
    const host = new FakeSessionHost({
      behaviour: async (turn) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return `slow: ${turn.input}`;
      },
    });
    const { url } = await start({ reply_timeout_ms: 30, callback_url: receiver.url }, host);
    const answer = await post_signed(url, KEY, hello);
    expect(answer).toMatchObject({ status: 202, body: { status: 'accepted' } });
    await receiver.until(1);
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({ text: 'slow: hello' });
  });

  it('refuses with 503 while draining, and takes the same id again after', async () => {
    const { url, adapter } = await start();
    await adapter.stop_intake();
    const answer = await post_signed(url, KEY, hello, { id: 'msg_later' });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
  });
});

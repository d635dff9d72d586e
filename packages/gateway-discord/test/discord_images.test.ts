/**
 * Pictures through Discord: the adapter with the real discord.js against the testkit's fake
 * Gateway + REST (which also serves posted attachments, as a stand-in CDN), in front of a real
 * GatewayBus over the real SessionHost and Agent, with the testkit's fake OpenAI server as the
 * model. An image attachment within the cap reaches the model's request; an oversize one, a
 * non-image file and an image on a host that is not Discord's CDN are refused politely, and the
 * last is never fetched.
 */
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
import { type FakeDiscord, start_fake_discord } from '@lich/testkit/discord';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../src/discord_adapter.js';

const ANN = { id: '1001', username: 'ann' };
const CAP = 4096;

let temp: TempDir;
let model: FakeServer;
let fake: FakeDiscord;
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-discord-images-' });
  model = await start_openai_server({ respond: () => ({ text: 'I see one red pixel.' }) });
  fake = await start_fake_discord({ required_intents: 1 << 15 });
  const agent = new Agent({
    config: make_config({
      work_dir: temp.path,
      providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
    }),
    env: {},
    on_warning: () => undefined,
  });
  const host = create_session_host({ agent, on_warning: () => undefined });
  const adapter = new DiscordAdapter({
    token: 'fake-token',
    api: fake.api_url,
    max_image_bytes: CAP,
    test_attachment_hosts: [new URL(fake.cdn_url).host],
  });
  const bus = new GatewayBus({
    host,
    adapter,
    access: { allow_users: [ANN.id] },
    store: memory_store(),
    rate_limit: false,
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
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await fake.close();
  await model.close();
  await temp.cleanup();
});

function user_content(): unknown {
  const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
  return body.messages.find((message) => message.role === 'user')?.content;
}

describe('Discord attachments', () => {
  it('downloads an image attachment within the cap and sends it to the model', async () => {
    fake.post({
      channel_id: '555',
      author: ANN,
      content: 'what is wrong here',
      attachments: [{ filename: 'shot.png', content_type: 'image/png', bytes: tiny_png() }],
    });
    await fake.wait_for_sent(1, { timeout_ms: 10_000 });
    expect(fake.sent[0]?.content).toBe('I see one red pixel.');
    expect(fake.downloads).toHaveLength(1);
    expect(user_content()).toEqual([
      { type: 'text', text: 'what is wrong here' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('refuses an oversize picture and a non-image file politely, and runs nothing', async () => {
    fake.post({
      channel_id: '555',
      author: ANN,
      content: '',
      attachments: [
        {
          filename: 'huge.png',
          content_type: 'image/png',
          bytes: tiny_png(),
          size: 2 * 1024 * 1024,
        },
        { filename: 'notes.pdf', content_type: 'application/pdf', bytes: Buffer.from('%PDF') },
      ],
    });
    await fake.wait_for_sent(1, { timeout_ms: 10_000 });
    expect(fake.sent[0]?.content).toBe(
      'Sorry, I could not take everything you sent:\n' +
        '- huge.png: the picture is 2 MB, over the limit of 4 KB\n' +
        '- notes.pdf: I understand only text and pictures',
    );
    expect(fake.downloads).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it("never fetches a picture from a host that is not Discord's CDN", async () => {
    fake.post({
      channel_id: '555',
      author: ANN,
      content: 'look',
      attachments: [
        {
          filename: 'shot.png',
          content_type: 'image/png',
          bytes: tiny_png(),
          url: `http://localhost:${new URL(fake.cdn_url).port}/attachments/x/shot.png`,
        },
      ],
    });
    await fake.wait_for_sent(2, { timeout_ms: 10_000 });
    expect(fake.sent.map((sent) => sent.content)).toContain(
      `Sorry, I could not take shot.png: pictures are taken only from cdn.discordapp.com, media.discordapp.net, ${new URL(fake.cdn_url).host}.`,
    );
    expect(fake.downloads).toEqual([]);
    expect(user_content()).toBe('look');
  });
});

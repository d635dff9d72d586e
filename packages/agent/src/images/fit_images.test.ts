import { image_info, type Message } from '@lich/core';
import { type FakeServer, start_fake_server, TINY_PNG_BASE64 } from '@lich/testkit';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { create_provider_chat } from '../provider_chat.js';
import { fit_images } from './fit_images.js';
import { IMAGE_LIMITS } from './image_limits.js';

let servers: FakeServer[] = [];

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function anthropic_server(): Promise<FakeServer> {
  const server = await start_fake_server({ format: 'anthropic' });
  servers.push(server);
  return server;
}

/** A 6000×4000 PNG of noise: large in pixels and in bytes, as a photo is. */
async function huge_png(): Promise<Buffer> {
  const width = 6000;
  const height = 4000;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  for (let index = 0; index < raw.length; index += 97) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    raw[index] = seed & 0xff;
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

function with_picture(data: string): Message[] {
  return [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is wrong here' },
        { type: 'image', media_type: 'image/png', data, name: 'shot.png' },
      ],
    },
  ];
}

describe('pictures scaled to the provider limits before they are sent', () => {
  it('sends a 6000×4000 PNG to Anthropic under 1568 px and 3.75 MB', async () => {
    const png = await huge_png();
    expect(image_info(png)).toMatchObject({ width: 6000, height: 4000 });
    const server = await anthropic_server();
    server.enqueue({ text: 'a noisy picture' });
    const chat = create_provider_chat(
      [{ kind: 'anthropic', model: 'claude-test', base_url: server.url }],
      { env: { ANTHROPIC_API_KEY: 'sk-test' } },
    );
    const result = await chat(with_picture(png.toString('base64')), []);
    expect(result.message.content).toBe('a noisy picture');
    const body = server.requests[0]?.body as {
      messages: { content: { type: string; source?: { data: string; media_type: string } }[] }[];
    };
    const sent = body.messages[0]?.content[1]?.source;
    expect(sent).toBeDefined();
    const bytes = Buffer.from(sent?.data ?? '', 'base64');
    const info = image_info(bytes);
    const limits = IMAGE_LIMITS.anthropic;
    expect(Math.max(info?.width ?? Infinity, info?.height ?? Infinity)).toBeLessThanOrEqual(
      limits?.max_side ?? 0,
    );
    expect(bytes.length).toBeLessThanOrEqual(limits?.max_bytes ?? 0);
    expect(info?.width).toBe(1568);
    expect(sent?.media_type).toBe(info?.media_type);
  }, 60_000);

  it('leaves a picture that fits as it is, and the messages untouched', async () => {
    const messages = with_picture(TINY_PNG_BASE64);
    const fitted = await fit_images(messages, { kind: 'openai_compat', model: 'gpt-test' });
    expect(fitted).toEqual(messages);
    const text: Message[] = [{ role: 'user', content: 'hi' }];
    expect(await fit_images(text, { kind: 'anthropic', model: 'x' })).toBe(text);
  });

  it('refuses before sending to a model configured with vision: false, naming it', async () => {
    const server = await anthropic_server();
    const chat = create_provider_chat(
      [{ kind: 'anthropic', model: 'claude-blind', base_url: server.url, vision: false }],
      { env: { ANTHROPIC_API_KEY: 'sk-test' } },
    );
    await expect(chat(with_picture(TINY_PNG_BASE64), [])).rejects.toThrow(
      /claude-blind.*take no pictures/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('says which model refused a picture, and how to tell Lich', async () => {
    const server = await anthropic_server();
    server.enqueue({ kind: 'status', status: 400, message: 'image input is not supported' });
    const chat = create_provider_chat(
      [{ kind: 'anthropic', model: 'claude-text', base_url: server.url }],
      { env: { ANTHROPIC_API_KEY: 'sk-test' } },
    );
    await expect(chat(with_picture(TINY_PNG_BASE64), [])).rejects.toThrow(
      /image input is not supported.*claude-text cannot see pictures.*"vision": false/,
    );
  });
});

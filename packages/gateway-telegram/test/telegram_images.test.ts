/**
 * Photos through Telegram: the adapter against the Bot API emulator `telegram-test-api` (its proxy
 * adds `getFile` and the file host, which the emulator lacks), in front of a real GatewayBus over
 * the real SessionHost and Agent, with the testkit's fake OpenAI server as the model. A photo
 * within the cap is downloaded from the configured Bot API host and reaches the model's request;
 * an oversize one, and a voice message, are refused politely and never reach the model.
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
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../src/telegram_adapter.js';
import { type Emulator, start_emulator } from './telegram_emulator.js';

const TOKEN = '123456:TEST-token';
const CAP = 4096;

let temp: TempDir;
let model: FakeServer;
let emulator: Emulator;
const cleanups: (() => Promise<unknown>)[] = [];

beforeEach(async () => {
  temp = await make_temp_dir({ prefix: 'lich-telegram-images-' });
  model = await start_openai_server({
    respond: (request) => {
      const { messages } = request.body as { messages: { role: string; content: unknown }[] };
      const last = messages.findLast((message) => message.role === 'user');
      return { text: last?.content === 'hello from Bob' ? 'Hi Bob.' : 'I see one red pixel.' };
    },
  });
  emulator = await start_emulator();
  const agent = new Agent({
    config: make_config({
      work_dir: temp.path,
      providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
    }),
    env: {},
    on_warning: () => undefined,
  });
  const host = create_session_host({ agent, on_warning: () => undefined });
  const adapter = new TelegramAdapter({
    token: TOKEN,
    api_root: emulator.api_root,
    poll_timeout_s: 0,
    idle_delay_ms: 20,
    max_image_bytes: CAP,
  });
  const bus = new GatewayBus({
    host,
    adapter,
    access: { allow_users: ['1001', '1002'] },
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
  await emulator.close();
  await model.close();
  await temp.cleanup();
});

function bot_texts(): string[] {
  return (emulator.server.storage.botMessages as unknown as { message: { text: string } }[]).map(
    (update) => update.message.text,
  );
}

async function until(check: () => boolean, what: string, timeout_ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeout_ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A message of Ann's (user 1001) with `extra` fields and no text. */
async function send_from_ann(extra: Record<string, unknown>): Promise<void> {
  const client = emulator.server.getClient(TOKEN, { userId: 1001, chatId: 1001, firstName: 'Ann' });
  const message = client.makeMessage('', extra) as Record<string, unknown>;
  delete message.text;
  await client.sendMessage(message as unknown as ReturnType<typeof client.makeMessage>);
}

describe('Telegram photos', () => {
  it('downloads the largest size within the cap from the Bot API host and sends it to the model', async () => {
    emulator.add_file('photo-small', tiny_png());
    await send_from_ann({
      caption: 'what is wrong here',
      photo: [
        { file_id: 'photo-small', width: 90, height: 90, file_size: tiny_png().length },
        { file_id: 'photo-huge', width: 4000, height: 4000, file_size: CAP + 1 },
      ],
    });
    await until(() => bot_texts().length === 1, 'the answer');
    expect(bot_texts()).toEqual(['I see one red pixel.']);
    expect(emulator.downloads).toEqual([`/file/bot${TOKEN}/photos/photo-small`]);
    const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'text', text: 'what is wrong here' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it("answers another chat while one chat's picture is still downloading", async () => {
    emulator.add_file('photo-slow', tiny_png(), { delay_ms: 2_000 });
    await send_from_ann({
      caption: 'what is this',
      photo: [{ file_id: 'photo-slow', width: 90, height: 90, file_size: tiny_png().length }],
    });
    await until(() => emulator.downloads.length === 1, 'the download to start');
    const bob = emulator.server.getClient(TOKEN, { userId: 1002, chatId: 1002, firstName: 'Bob' });
    await bob.sendMessage(bob.makeMessage('hello from Bob'));
    await until(() => bot_texts().includes('Hi Bob.'), "Bob's answer", 1_800);
    // Ann's picture still downloading: her answer comes after
    expect(bot_texts()).toEqual(['Hi Bob.']);
    await until(() => bot_texts().length === 2, "Ann's answer");
    expect(bot_texts()).toEqual(['Hi Bob.', 'I see one red pixel.']);
  });

  it('takes an image document, with no caption', async () => {
    emulator.add_file('doc-1', tiny_png());
    await send_from_ann({
      document: { file_id: 'doc-1', file_name: 'shot.png', mime_type: 'image/png', file_size: 70 },
    });
    await until(() => bot_texts().length === 1, 'the answer');
    const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);
  });

  it('refuses a photo over the cap politely, before downloading it, and runs nothing', async () => {
    await send_from_ann({
      photo: [{ file_id: 'photo-huge', width: 4000, height: 4000, file_size: 3 * 1024 * 1024 }],
    });
    await until(() => bot_texts().length === 1, 'the refusal');
    expect(bot_texts()).toEqual([
      'Sorry, I could not take the picture: the picture is 3 MB, over the limit of 4 KB.',
    ]);
    expect(emulator.downloads).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });

  it('counts the bytes while downloading when Telegram reports no size', async () => {
    emulator.add_file('photo-liar', Buffer.alloc(CAP * 4, 1), { report_size: false });
    await send_from_ann({
      caption: 'and this one?',
      photo: [{ file_id: 'photo-liar', width: 100, height: 100 }],
    });
    await until(() => bot_texts().length === 2, 'the refusal and the answer');
    expect(bot_texts()).toContain(
      'Sorry, I could not take the picture: the picture is over the limit of 4 KB.',
    );
    // the caption still goes to the model, without the picture
    const body = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.find((message) => message.role === 'user')?.content).toBe('and this one?');
  });

  it('answers a voice message that it understands only text and pictures', async () => {
    await send_from_ann({ voice: { file_id: 'voice-1', duration: 3 } });
    await until(() => bot_texts().length === 1, 'the refusal');
    expect(bot_texts()).toEqual([
      'Sorry, I could not take the voice message: I understand only text and pictures.',
    ]);
    expect(emulator.downloads).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });
});

/**
 * The Telegram adapter against the Bot API emulator `telegram-test-api` (through a proxy that adds
 * sendChatAction and injected 429s), in front of a real GatewayBus over the bus's fake host.
 */
import { GatewayBus, memory_store, PairingStore } from '@lich/gateway';
import { make_temp_dir } from '@lich/testkit';
import { type FakeBehaviour, FakeSessionHost } from '@lich/testkit/session_host';
import { afterEach, describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../src/telegram_adapter.js';
import { type Emulator, start_emulator } from './telegram_emulator.js';

const TOKEN = '123456:TEST-token';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface BotMessage {
  message: {
    chat_id: string | number;
    text: string;
    entities?: unknown[];
    message_thread_id?: number;
  };
}

function bot_messages(emulator: Emulator): BotMessage['message'][] {
  return (emulator.server.storage.botMessages as unknown as BotMessage[]).map(
    (update) => update.message,
  );
}

async function until(check: () => boolean, what: string, timeout_ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeout_ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function start(
  options: {
    behaviour?: FakeBehaviour;
    access?: ConstructorParameters<typeof GatewayBus>[0]['access'];
    pairing?: boolean;
    webhook?: boolean;
    logs?: string[];
  } = {},
) {
  const emulator = await start_emulator();
  cleanups.push(() => emulator.close());
  const host = new FakeSessionHost(
    options.behaviour === undefined ? {} : { behaviour: options.behaviour },
  );
  const adapter = new TelegramAdapter({
    token: TOKEN,
    api_root: emulator.api_root,
    poll_timeout_s: 0,
    idle_delay_ms: 20,
    ...(options.webhook
      ? { webhook: { url: 'https://bot.example/tg/hook', secret_token: 'good_secret-1', port: 0 } }
      : {}),
  });
  const dir = options.pairing ? await make_temp_dir({ prefix: 'lich-telegram-' }) : undefined;
  if (dir) cleanups.push(() => dir.cleanup());
  const bus = new GatewayBus({
    host,
    adapter,
    access: options.access ?? { allow_users: ['1001'], allow_groups: ['-500'] },
    ...(dir ? { pairing: new PairingStore({ dir: dir.path }) } : {}),
    store: memory_store(),
    rate_limit: false,
    ...(options.logs === undefined ? {} : { on_log: (entry) => options.logs?.push(entry.message) }),
  });
  await bus.start();
  await adapter.start(bus);
  cleanups.push(() => adapter.close());
  return { emulator, adapter, host, bus };
}

describe('the Telegram adapter against the Bot API emulator', () => {
  it('answers a direct message in its chat, as a reply, with typing while it runs', async () => {
    const { emulator } = await start({
      behaviour: async (turn) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        return `**echo**: ${turn.input}`;
      },
    });
    const client = emulator.server.getClient(TOKEN, {
      userId: 1001,
      chatId: 1001,
      firstName: 'Ann',
    });
    await client.sendMessage(client.makeMessage('hello bot'));
    await until(() => bot_messages(emulator).length === 1, 'a reply');
    const [reply] = bot_messages(emulator);
    expect(String(reply?.chat_id)).toBe('1001');
    expect(reply?.text).toBe('echo: hello bot');
    expect(reply?.entities).toEqual([{ type: 'bold', offset: 0, length: 4 }]);
    expect(emulator.typing).toContain('1001');
  });

  it('in a group answers only when mentioned, and ignores unknown senders', async () => {
    const { emulator, host } = await start();
    const group = { chat: { id: -500, type: 'group' as const, title: 'team' } };
    const ann = emulator.server.getClient(TOKEN, { userId: 1001, chatId: -500, type: 'group' });
    await ann.sendMessage(ann.makeMessage('talking among ourselves', group));
    const me = (await (await fetch(`${emulator.api_root}/bot${TOKEN}/getMe`)).json()) as {
      result: { username: string };
    };
    const text = `@${me.result.username} what is 2+2?`;
    await ann.sendMessage(
      ann.makeMessage(text, {
        ...group,
        entities: [{ type: 'mention', offset: 0, length: me.result.username.length + 1 }],
      }),
    );
    const stranger = emulator.server.getClient(TOKEN, { userId: 2002, chatId: 2002 });
    await stranger.sendMessage(stranger.makeMessage('let me in'));
    await until(() => bot_messages(emulator).length === 1, 'the group reply');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(host.prompts.map((prompt) => prompt.input)).toEqual([
      expect.stringContaining('what is 2+2?'),
    ]);
    expect(bot_messages(emulator).map((message) => String(message.chat_id))).toEqual(['-500']);
  });

  for (const allowed of [['-100200'], ['-100200', '-100200:77']]) {
    it(`answers a mention in a forum topic of an allowed group (${allowed.join(', ')}) in that topic (S2)`, async () => {
      const logs: string[] = [];
      const { emulator, host } = await start({
        access: { allow_users: ['1001'], allow_groups: allowed },
        logs,
      });
      const me = (await (await fetch(`${emulator.api_root}/bot${TOKEN}/getMe`)).json()) as {
        result: { username: string };
      };
      const handle = `@${me.result.username}`;
      const carl = emulator.server.getClient(TOKEN, {
        userId: 333,
        chatId: -100200,
        type: 'supergroup',
        firstName: 'Carl',
      });
      const in_topic = (topic: number, words: string) =>
        carl.makeMessage(`${handle} ${words}`, {
          chat: { id: -100200, type: 'supergroup', title: 'forum', is_forum: true },
          entities: [{ type: 'mention', offset: 0, length: handle.length }],
          message_thread_id: topic,
          is_topic_message: true,
        } as never);
      await carl.sendMessage(in_topic(77, 'in topic 77'));
      await until(() => bot_messages(emulator).length === 1, 'the reply in the topic');
      expect(bot_messages(emulator)[0]).toMatchObject({ message_thread_id: 77 });
      expect(host.prompts.map((prompt) => prompt.input)).toEqual([
        expect.stringContaining('in topic 77'),
      ]);
      await carl.sendMessage(in_topic(78, 'in topic 78'));
      if (allowed.length === 1) {
        // the whole group is allowed: every topic is
        await until(() => bot_messages(emulator).length === 2, 'the reply in topic 78');
        expect(bot_messages(emulator)[1]).toMatchObject({ message_thread_id: 78 });
      } else {
        // a topic entry narrows the group to its topics, and a drop says so in the log
        await until(
          () => logs.some((line) => /dropped by the access policy: group_not_allowed/.test(line)),
          'the log line of the drop',
        );
        expect(bot_messages(emulator)).toHaveLength(1);
      }
    });
  }

  it('refuses a whitespace-only message at the door, and the chat goes on (S1)', async () => {
    const logs: string[] = [];
    const { emulator, host } = await start({ logs });
    const ann = emulator.server.getClient(TOKEN, { userId: 1001, chatId: 1001 });
    await ann.sendMessage(ann.makeMessage('   '));
    await ann.sendMessage(ann.makeMessage('real question'));
    await until(() => bot_messages(emulator).length === 1, 'the answer');
    expect(host.prompts.map((prompt) => prompt.input)).toEqual(['real question']);
    expect(logs.some((line) => /empty message from 1001 was refused/.test(line))).toBe(true);
  });

  it('gives an unknown user a pairing code, and answers /help locally', async () => {
    const { emulator, host } = await start({ access: {}, pairing: true });
    const stranger = emulator.server.getClient(TOKEN, { userId: 3003, chatId: 3003 });
    await stranger.sendMessage(stranger.makeCommand('/help'));
    await stranger.sendMessage(stranger.makeMessage('hi'));
    await until(() => bot_messages(emulator).length === 2, 'help and a pairing notice');
    const [help, pairing] = bot_messages(emulator);
    expect(help?.text).toMatch(/Lich agent/);
    expect(pairing?.text).toMatch(/lich gateway pair telegram [A-Z2-9]{8}/);
    expect(host.prompts).toEqual([]);
  });

  it("shows an unknown user's /start the pairing code, and a known user's /start the help", async () => {
    const { emulator, host } = await start({
      access: { allow_users: ['1001'], dm_policy: 'pairing' },
      pairing: true,
    });
    const stranger = emulator.server.getClient(TOKEN, { userId: 3003, chatId: 3003 });
    await stranger.sendMessage(stranger.makeCommand('/start'));
    await until(() => bot_messages(emulator).length === 1, 'the pairing notice');
    const known = emulator.server.getClient(TOKEN, { userId: 1001, chatId: 1001 });
    await known.sendMessage(known.makeCommand('/start'));
    await until(() => bot_messages(emulator).length === 2, 'the help');
    const [pairing, help] = bot_messages(emulator);
    expect(String(pairing?.chat_id)).toBe('3003');
    expect(pairing?.text).toMatch(/lich gateway pair telegram [A-Z2-9]{8}/);
    expect(String(help?.chat_id)).toBe('1001');
    expect(help?.text).toMatch(/Lich agent/);
    expect(host.prompts).toEqual([]);
  });

  it('splits a long reply at 4096 characters', async () => {
    const long = Array.from(
      { length: 120 },
      (_, index) => `Paragraph ${index}: ${'word '.repeat(12)}`,
    ).join('\n\n');
    const { emulator } = await start({ behaviour: () => long });
    const client = emulator.server.getClient(TOKEN, { userId: 1001, chatId: 1001 });
    await client.sendMessage(client.makeMessage('write a lot'));
    await until(() => bot_messages(emulator).length >= 3, 'three chunks');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const texts = bot_messages(emulator).map((message) => message.text);
    expect(texts.every((text) => text.length <= 4096)).toBe(true);
    // nothing lost or repeated: the chunks hold the answer's words in order
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(texts.join(' '))).toEqual(words(long));
  });

  it('waits out a 429 retry_after and then delivers', async () => {
    const { emulator } = await start();
    emulator.throttle('sendMessage', 1, 1);
    const client = emulator.server.getClient(TOKEN, { userId: 1001, chatId: 1001 });
    await client.sendMessage(client.makeMessage('hello'));
    await until(() => bot_messages(emulator).length === 1, 'the reply after the 429', 15_000);
    const sends = emulator.calls.filter((call) => call.method === 'sendMessage');
    expect(sends.length).toBe(2);
    expect((sends[1]?.at ?? 0) - (sends[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });

  it('in webhook mode sets the webhook with its secret and refuses a wrong secret', async () => {
    const { emulator, adapter, host } = await start({ webhook: true });
    const webhooks = (
      emulator.server as unknown as {
        webhooks: Record<string, { url: string; secret_token?: string }>;
      }
    ).webhooks;
    expect(webhooks[TOKEN]).toMatchObject({
      url: 'https://bot.example/tg/hook',
      secret_token: 'good_secret-1',
    });
    const port = adapter.webhook_address?.port;
    const update = {
      update_id: 1,
      message: {
        message_id: 7,
        date: 1,
        chat: { id: 1001, type: 'private' },
        from: { id: 1001, is_bot: false, first_name: 'Ann' },
        text: 'via webhook',
      },
    };
    const post = (secret: string | undefined) =>
      fetch(`http://127.0.0.1:${port}/tg/hook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
        },
        body: JSON.stringify(update),
      });
    expect((await post('wrong')).status).toBe(401);
    expect((await post(undefined)).status).toBe(401);
    expect(host.prompts).toEqual([]);
    expect((await post('good_secret-1')).status).toBe(200);
    await until(() => bot_messages(emulator).length === 1, 'the webhook reply');
    expect(host.prompts.map((prompt) => prompt.input)).toEqual([
      expect.stringContaining('via webhook'),
    ]);
  });
});

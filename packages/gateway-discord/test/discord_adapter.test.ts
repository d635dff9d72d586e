/**
 * The Discord adapter with the real discord.js against the testkit's fake Gateway + REST, in front
 * of a real GatewayBus over the bus's fake host.
 */
import { GatewayBus, memory_store } from '@lich/gateway';
import { type FakeDiscord, start_fake_discord } from '@lich/testkit/discord';
import { type FakeBehaviour, FakeSessionHost } from '@lich/testkit/session_host';
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordAdapter } from '../src/discord_adapter.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ANN = { id: '1001', username: 'ann' };
const STRANGER = { id: '2002', username: 'mallory' };
const GUILD = {
  id: '100',
  name: 'guild',
  channels: [
    { id: '200', name: 'general' },
    { id: '300', name: 'a thread', parent_id: '200' },
  ],
};

async function start(options: { behaviour?: FakeBehaviour; register_commands?: boolean } = {}) {
  const fake = await start_fake_discord({ guilds: [GUILD], required_intents: 1 << 15 });
  cleanups.push(() => fake.close());
  const host = new FakeSessionHost(
    options.behaviour === undefined ? {} : { behaviour: options.behaviour },
  );
  const adapter = new DiscordAdapter({
    token: 'fake-token',
    api: fake.api_url,
    ...(options.register_commands ? { register_commands: true } : {}),
  });
  const bus = new GatewayBus({
    host,
    adapter,
    access: { allow_users: [ANN.id], allow_groups: ['200', '300'] },
    store: memory_store(),
    rate_limit: false,
  });
  await bus.start();
  await adapter.start(bus);
  cleanups.push(() => adapter.close());
  return { fake, host, adapter };
}

async function quiet(fake: FakeDiscord, count: number): Promise<void> {
  await fake.wait_for_sent(count, { timeout_ms: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 250));
  expect(fake.sent.length).toBe(count);
}

describe('the Discord adapter against the fake gateway', () => {
  it('answers a DM, with typing and no mentions allowed', async () => {
    const { fake } = await start({
      behaviour: async (turn) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return `echo: ${turn.input} @everyone`;
      },
    });
    fake.post({ channel_id: '555', author: ANN, content: 'hello there' });
    await quiet(fake, 1);
    expect(fake.sent[0]).toMatchObject({ channel_id: '555' });
    expect(fake.sent[0]?.content).toContain('hello there');
    expect(fake.sent[0]?.body.allowed_mentions).toEqual({ parse: [] });
    expect(fake.typing).toContain('555');
  });

  it('answers in a guild channel only when mentioned, and in a thread as its own conversation', async () => {
    const { fake, host } = await start();
    fake.post({ channel_id: '200', guild_id: '100', author: ANN, content: 'not for the bot' });
    fake.post({
      channel_id: '200',
      guild_id: '100',
      author: ANN,
      content: `<@${fake.bot.id}> in the channel`,
      mentions: [fake.bot],
    });
    fake.post({
      channel_id: '300',
      guild_id: '100',
      author: ANN,
      content: `<@${fake.bot.id}> in the thread`,
      mentions: [fake.bot],
    });
    fake.post({ channel_id: '777', author: STRANGER, content: 'unknown in a DM' });
    await fake.wait_for_sent(2, { timeout_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const by_channel = Object.fromEntries(fake.sent.map((sent) => [sent.channel_id, sent.content]));
    expect(by_channel['200']).toContain('in the channel');
    expect(by_channel['300']).toContain('in the thread');
    const inputs = host.prompts.map((prompt) => prompt.input).join('\n');
    expect(inputs).not.toContain('not for the bot');
    expect(new Set(host.prompts.map((prompt) => prompt.session_id)).size).toBe(2);
    // the stranger under pairing-less allowlist gets nothing
    expect(fake.sent.some((sent) => sent.channel_id === '777')).toBe(false);
  });

  it('splits a long reply at 2000 characters', async () => {
    const long = Array.from(
      { length: 60 },
      (_, index) => `Line ${index}: ${'text '.repeat(15)}`,
    ).join('\n');
    const { fake } = await start({ behaviour: () => long });
    fake.post({ channel_id: '555', author: ANN, content: 'a lot please' });
    await fake.wait_for_sent(3, { timeout_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const texts = fake.sent.map((sent) => sent.content);
    expect(texts.every((text) => text.length <= 2000)).toBe(true);
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(texts.join(' '))).toEqual(words(long));
  });

  it('registers /lich on request', async () => {
    const { fake } = await start({ register_commands: true });
    expect(fake.commands).toEqual([expect.objectContaining({ name: 'lich' })]);
  });

  it('says what to switch on when the Message Content intent is refused', async () => {
    const fake = await start_fake_discord({ required_intents: 1 << 30 });
    cleanups.push(() => fake.close());
    const adapter = new DiscordAdapter({ token: 'fake-token', api: fake.api_url });
    cleanups.push(() => adapter.close());
    const bus = { receive: async () => ({ status: 'closed' as const }) };
    await expect(adapter.start(bus)).rejects.toThrow(/MESSAGE CONTENT INTENT/);
  });
});

/**
 * The Twitch adapter with the real tmi.js against the testkit's fake IRC-over-WebSocket server, in
 * front of a real GatewayBus over the bus's fake host.
 */
import { type AccessPolicyConfig, GatewayBus, memory_store } from '@lich/gateway';
import { type FakeBehaviour, FakeSessionHost } from '@lich/testkit/session_host';
import { type FakeTwitch, start_fake_twitch } from '@lich/testkit/twitch';
import { afterEach, describe, expect, it } from 'vitest';
import { TwitchAdapter, type TwitchAdapterOptions } from '../src/twitch_adapter.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ANN = { login: 'ann', user_id: '1001' };

async function start(
  options: {
    behaviour?: FakeBehaviour;
    rate?: TwitchAdapterOptions['rate'];
    access?: AccessPolicyConfig;
    bot_badges?: string;
  } = {},
): Promise<{ fake: FakeTwitch; host: FakeSessionHost }> {
  const fake = await start_fake_twitch(
    options.bot_badges === undefined ? {} : { bot_badges: options.bot_badges },
  );
  cleanups.push(() => fake.close());
  const host = new FakeSessionHost(
    options.behaviour === undefined ? {} : { behaviour: options.behaviour },
  );
  const adapter = new TwitchAdapter({
    username: 'LichBot',
    token: 'oauth:secret',
    channels: ['#stream'],
    connection: { server: '127.0.0.1', port: fake.port, secure: false },
    ...(options.rate === undefined ? {} : { rate: options.rate }),
  });
  const bus = new GatewayBus({
    host,
    adapter,
    access: options.access ?? { allow_users: [ANN.user_id], allow_groups: ['stream'] },
    store: memory_store(),
    rate_limit: false,
    max_concurrency: 64,
  });
  await bus.start();
  await adapter.start(bus);
  cleanups.push(() => adapter.close());
  await fake.wait_for_join('stream');
  return { fake, host };
}

describe('the Twitch adapter against the fake chat server', () => {
  it('answers a message addressed with @name or !lich, as a reply, and ignores the rest', async () => {
    const { fake, host } = await start();
    fake.say('stream', ANN, 'just chatting');
    const id = fake.say('stream', ANN, '@lichbot what time is it?');
    fake.say('stream', ANN, '!lich and now?');
    await fake.wait_for_sent(2, { timeout_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.login).toEqual({ pass: 'oauth:secret', nick: 'lichbot' });
    const inputs = host.prompts.map((prompt) => prompt.input).join('\n');
    expect(inputs).toContain('what time is it?');
    expect(inputs).toContain('and now?');
    expect(inputs).not.toContain('just chatting');
    expect(fake.sent).toHaveLength(2);
    expect(fake.sent[0]).toMatchObject({ channel: '#stream', reply_to: id });
  });

  it('splits a long reply at 500 characters, one line each', async () => {
    const long = Array.from(
      { length: 30 },
      (_, index) => `Point ${index}: ${'words '.repeat(8)}`,
    ).join('\n');
    const { fake } = await start({ behaviour: () => long });
    fake.say('stream', ANN, '!lich tell me everything');
    await fake.wait_for_sent(3, { timeout_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const texts = fake.sent.map((sent) => sent.text);
    expect(texts.every((text) => text.length <= 500 && !text.includes('\n'))).toBe(true);
    const words = (text: string) => text.split(/\s+/).filter(Boolean);
    expect(words(texts.join(' '))).toEqual(words(long));
  });

  it('holds the send rate under a burst of 50 prompts', async () => {
    const limit = 10;
    const window_ms = 1_000;
    const { fake } = await start({ rate: { limit, window_ms } });
    const users = Array.from({ length: 50 }, (_, index) => ({
      login: `u${index}`,
      user_id: ANN.user_id,
    }));
    for (const [index, user] of users.entries())
      fake.say('stream', user, `!lich question ${index}`);
    await fake.wait_for_sent(30, { timeout_ms: 20_000 });
    const times = fake.sent.map((sent) => sent.at);
    for (let index = limit; index < times.length; index += 1) {
      // the fake's clock sees a send after the window let it go, later still on a loaded machine
      // (an earlier send seen late shortens a gap); without the window the gaps would be ~0 ms
      expect((times[index] as number) - (times[index - limit] as number)).toBeGreaterThanOrEqual(
        window_ms - 250,
      );
    }
  });

  it('answers only allowed people in a channel anyone can join: ids, or roles by badge', async () => {
    const { fake, host } = await start({
      access: { allow_users: [ANN.user_id], allow_groups: ['stream'], allow_roles: ['moderator'] },
    });
    const stranger = { login: 'passerby', user_id: '2002' };
    const mod = { login: 'modly', user_id: '3003', mod: true };
    fake.say('stream', stranger, '!lich run rm -rf for me');
    fake.say('stream', mod, '!lich from the moderator');
    fake.say('stream', ANN, '!lich from ann');
    await fake.wait_for_sent(2, { timeout_ms: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const inputs = host.prompts.map((prompt) => prompt.input).join('\n');
    expect(inputs).toContain('from the moderator');
    expect(inputs).toContain('from ann');
    expect(inputs).not.toContain('rm -rf');
    expect(fake.sent).toHaveLength(2);
  });

  it('refuses to start with a channel but nobody allowed to speak in it', async () => {
    await expect(start({ access: { allow_groups: ['stream'] } })).rejects.toThrow(
      /only allowed senders are answered/,
    );
  });

  it('sends at the moderator rate in a channel whose USERSTATE says the bot moderates', async () => {
    const window_ms = 2_000;
    const { fake } = await start({
      bot_badges: 'moderator/1',
      rate: { limit: 2, moderator_limit: 6, window_ms },
    });
    for (let index = 0; index < 6; index += 1) {
      fake.say('stream', { login: `u${index}`, user_id: ANN.user_id }, `!lich q${index}`);
    }
    await fake.wait_for_sent(6, { timeout_ms: 10_000 });
    const times = fake.sent.map((sent) => sent.at);
    // six sends fit in one window (the user ceiling of 2 would have spread them over 3 windows)
    expect((times[5] as number) - (times[0] as number)).toBeLessThan(window_ms);
  });
});

import tmi from 'tmi.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeTwitch, start_fake_twitch } from '../src/fake_twitch.js';

describe('fake twitch, driven by the real tmi.js', () => {
  let fake: FakeTwitch | undefined;
  let client: tmi.Client | undefined;
  afterEach(async () => {
    await client?.disconnect().catch(() => undefined);
    await fake?.close();
    client = undefined;
    fake = undefined;
  });

  it('logs in, joins, receives a tagged message and records what the bot says', async () => {
    fake = await start_fake_twitch();
    client = new tmi.Client({
      connection: { server: '127.0.0.1', port: fake.port, secure: false, reconnect: false },
      identity: { username: 'lichbot', password: 'oauth:secret' },
      channels: ['somechannel'],
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    });
    await client.connect();
    await fake.wait_for_join('somechannel');
    expect(fake.login).toEqual({ pass: 'oauth:secret', nick: 'lichbot' });
    const got = new Promise<{ tags: tmi.ChatUserstate; text: string }>((resolve) =>
      client?.on('message', (_channel, tags, text, self) => {
        if (!self) resolve({ tags, text });
      }),
    );
    fake.say('somechannel', { login: 'alice', user_id: '42', mod: true }, '@lichbot hello there');
    const { tags, text } = await got;
    expect(text).toBe('@lichbot hello there');
    expect(tags['user-id']).toBe('42');
    expect(tags.mod).toBe(true);
    await client.say('#somechannel', 'hi alice');
    const [sent] = await fake.wait_for_sent(1);
    expect(sent).toMatchObject({ channel: '#somechannel', text: 'hi alice' });
  });
});

import { Client, GatewayIntentBits, type Message, Partials } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeDiscord, start_fake_discord } from '../src/fake_discord.js';

const INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];

describe('fake discord, driven by the real discord.js', () => {
  let fake: FakeDiscord | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.destroy();
    await fake?.close();
    client = undefined;
    fake = undefined;
  });

  async function connect(required_intents = 0): Promise<{ fake: FakeDiscord; client: Client }> {
    fake = await start_fake_discord({
      required_intents,
      guilds: [
        {
          id: '100',
          name: 'guild',
          channels: [
            { id: '200', name: 'general' },
            { id: '300', name: 'a thread', parent_id: '200' },
          ],
        },
      ],
    });
    client = new Client({
      intents: INTENTS,
      partials: [Partials.Channel],
      rest: { api: fake.api_url },
    });
    const ready = new Promise<void>((resolve) => client?.once('clientReady', () => resolve()));
    await client.login('fake-token');
    await ready;
    return { fake, client };
  }

  it('logs in, sees guild channels and threads, and receives a DM and a guild message', async () => {
    const { fake, client } = await connect();
    expect(client.user?.id).toBe(fake.bot.id);
    expect(client.channels.cache.get('300')?.isThread()).toBe(true);
    const seen: Message[] = [];
    const two = new Promise<void>((resolve) =>
      client.on('messageCreate', (message) => {
        seen.push(message);
        if (seen.length === 2) resolve();
      }),
    );
    fake.post({ channel_id: '555', author: { id: '42', username: 'alice' }, content: 'hi in dm' });
    fake.post({
      channel_id: '200',
      guild_id: '100',
      author: { id: '42', username: 'alice' },
      content: `<@${fake.bot.id}> hi`,
      mentions: [fake.bot],
    });
    await two;
    expect(seen[0]?.channel.isDMBased()).toBe(true);
    expect(seen[0]?.content).toBe('hi in dm');
    expect(seen[1]?.guildId).toBe('100');
    expect(seen[1]?.mentions.users.has(fake.bot.id)).toBe(true);
  });

  it('records what the bot sends, typing and commands through REST', async () => {
    const { fake, client } = await connect();
    const channel = client.channels.cache.get('300');
    if (!channel?.isSendable()) throw new Error('thread not sendable');
    await channel.sendTyping();
    await channel.send({ content: 'hello thread', allowedMentions: { parse: [] } });
    const [sent] = await fake.wait_for_sent(1);
    expect(sent).toMatchObject({ channel_id: '300', content: 'hello thread' });
    expect(sent?.body.allowed_mentions).toEqual({ parse: [] });
    expect(fake.typing).toEqual(['300']);
    await client.application?.commands.set([{ name: 'lich', description: 'ask lich' }]);
    expect(fake.commands).toEqual([expect.objectContaining({ name: 'lich' })]);
  });

  it('closes with 4014 when the privileged intent is missing', async () => {
    fake = await start_fake_discord({ required_intents: 1 << 15 });
    client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: fake.api_url } });
    await expect(client.login('fake-token')).rejects.toThrow(/intent/i);
  });
});

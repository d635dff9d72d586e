import type { Message } from '@lich/core';
import { type FakeServer, start_openai_server, WEATHER_TOOL } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { create_openai_provider } from '../src/index.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SYSTEM: Message = { role: 'system', content: `You are Lich. ${'Rules. '.repeat(900)}` };

describe('prompt caching against the billing fake (OpenAI)', () => {
  it('sends the call cache_key as prompt_cache_key and reads the cached prefix', async () => {
    server = await start_openai_server({ prompt_cache: true });
    const provider = create_openai_provider({
      kind: 'openai_compat',
      model: 'gpt-test',
      base_url: server.base_url,
      cache: { enabled: true },
    });
    server.enqueue({ text: 'first' }, { text: 'second' });
    const history: Message[] = [SYSTEM, { role: 'user', content: 'one' }];
    const first = await provider.chat(history, [WEATHER_TOOL], { cache_key: 'session-1' });
    expect(first.usage?.cache_read_tokens).toBeUndefined();
    history.push(first.message, { role: 'user', content: 'two' });
    const second = await provider.chat(history, [WEATHER_TOOL], { cache_key: 'session-1' });
    expect(second.usage?.cache_read_tokens).toBeGreaterThanOrEqual(1024);
    expect(
      server.requests.map(
        (request) => (request.body as { prompt_cache_key?: string }).prompt_cache_key,
      ),
    ).toEqual(['session-1', 'session-1']);
    // the second prompt starts with the first one, byte for byte
    const [one, two] = server.requests.map((request) =>
      JSON.stringify((request.body as { messages: unknown[] }).messages.slice(0, 2)),
    );
    expect(two).toBe(one);
  });

  it('sends no prompt_cache_key to a server other than api.openai.com unless told', async () => {
    server = await start_openai_server();
    const provider = create_openai_provider({
      kind: 'openai_compat',
      model: 'gpt-test',
      base_url: server.base_url,
    });
    server.enqueue({ text: 'a' });
    await provider.chat([{ role: 'user', content: 'hi' }], [], { cache_key: 'session-1' });
    expect(server.requests[0]?.body).not.toHaveProperty('prompt_cache_key');
  });
});

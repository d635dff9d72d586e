import type { Message } from '@lich/core';
import { type FakeServer, start_anthropic_server, WEATHER_TOOL } from '@lich/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { create_anthropic_provider, EXTENDED_CACHE_TTL_BETA } from '../src/index.js';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SYSTEM: Message = { role: 'system', content: `You are Lich. ${'Rules. '.repeat(900)}` };

describe('prompt caching against the billing fake', () => {
  it('writes the prefix on the first call and reads it on the next turn', async () => {
    server = await start_anthropic_server({ prompt_cache: true });
    const provider = create_anthropic_provider({
      kind: 'anthropic',
      model: 'claude-test',
      base_url: server.base_url,
    });
    server.enqueue({ text: 'first' }, { text: 'second' });
    const history: Message[] = [SYSTEM, { role: 'user', content: 'one' }];
    const first = await provider.chat(history, [WEATHER_TOOL]);
    expect(first.usage?.cache_write_tokens).toBeGreaterThan(1024);
    expect(first.usage?.cache_read_tokens).toBeUndefined();
    history.push(first.message, { role: 'user', content: 'two' });
    const second = await provider.chat(history, [WEATHER_TOOL]);
    // everything up to the first turn's newest message comes from the cache
    expect(second.usage?.cache_read_tokens).toBe(first.usage?.cache_write_tokens);
    expect(second.usage?.cache_write_tokens).toBeGreaterThan(0);
    expect(server.bills).toHaveLength(2);
  });

  it('pays full price with caching off', async () => {
    server = await start_anthropic_server({ prompt_cache: true });
    const provider = create_anthropic_provider({
      kind: 'anthropic',
      model: 'claude-test',
      base_url: server.base_url,
      cache: { enabled: false },
    });
    server.enqueue({ text: 'a' }, { text: 'b' });
    await provider.chat([SYSTEM, { role: 'user', content: 'one' }], []);
    const again = await provider.chat([SYSTEM, { role: 'user', content: 'one' }], []);
    expect(again.usage?.cache_read_tokens).toBeUndefined();
    expect(again.usage?.cache_write_tokens).toBeUndefined();
  });

  it('sends the extended TTL beta with a 1 hour TTL, keeping the betas configured', async () => {
    server = await start_anthropic_server({ prompt_cache: true });
    const provider = create_anthropic_provider({
      kind: 'anthropic',
      model: 'claude-test',
      base_url: server.base_url,
      headers: { 'anthropic-beta': 'some-beta-2025-01-01' },
      cache: { ttl: '1h' },
    });
    server.enqueue({ text: 'a' }, { text: 'b' });
    const first = await provider.chat([SYSTEM, { role: 'user', content: 'one' }], []);
    expect(server.requests[0]?.headers['anthropic-beta']).toBe(
      `some-beta-2025-01-01,${EXTENDED_CACHE_TTL_BETA}`,
    );
    expect(server.requests[0]?.raw_body).toContain('"ttl":"1h"');
    // the fake reports cache_creation by TTL, as the API does: the whole write was a 1 hour one,
    // in the streamed answer and in the whole one
    expect(first.usage?.cache_write_tokens).toBeGreaterThan(1024);
    expect(first.usage?.cache_write_1h_tokens).toBe(first.usage?.cache_write_tokens);
    const whole = create_anthropic_provider({
      kind: 'anthropic',
      model: 'claude-test',
      base_url: server.base_url,
      cache: { ttl: '1h' },
      options: { stream: false },
    });
    const second = await whole.chat(
      [SYSTEM, { role: 'user', content: 'one' }, first.message, { role: 'user', content: 'two' }],
      [],
    );
    expect(second.usage?.cache_write_tokens).toBeGreaterThan(0);
    expect(second.usage?.cache_write_1h_tokens).toBe(second.usage?.cache_write_tokens);
  });
});

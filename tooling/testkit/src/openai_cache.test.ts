import { describe, expect, it } from 'vitest';
import { OpenAICache } from './openai_cache.js';

const SYSTEM = { role: 'system', content: 'y'.repeat(6000) };

describe('OpenAICache', () => {
  it('reads the shared prefix of an earlier prompt in steps of 128 tokens from 1024', () => {
    const cache = new OpenAICache();
    const first = cache.bill({ messages: [SYSTEM, { role: 'user', content: 'one' }] });
    expect(first.cache_read_tokens).toBe(0);
    const second = cache.bill({ messages: [SYSTEM, { role: 'user', content: 'two' }] });
    expect(second.cache_read_tokens).toBeGreaterThanOrEqual(1024);
    expect((second.cache_read_tokens - 1024) % 128).toBe(0);
    expect(second.cache_read_tokens).toBeLessThanOrEqual(second.input_tokens);
  });

  it('caches no prompt under 1024 tokens', () => {
    const cache = new OpenAICache();
    const body = { messages: [{ role: 'user', content: 'short' }] };
    cache.bill(body);
    expect(cache.bill(body).cache_read_tokens).toBe(0);
  });

  it('keeps one cache per prompt_cache_key', () => {
    const cache = new OpenAICache();
    cache.bill({ prompt_cache_key: 'a', messages: [SYSTEM] });
    expect(cache.bill({ prompt_cache_key: 'b', messages: [SYSTEM] }).cache_read_tokens).toBe(0);
    expect(
      cache.bill({ prompt_cache_key: 'a', messages: [SYSTEM] }).cache_read_tokens,
    ).toBeGreaterThan(0);
  });
});

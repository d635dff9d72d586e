import { describe, expect, it } from 'vitest';
import { AnthropicCache, CacheRuleError } from './anthropic_cache.js';

const LONG = 'x'.repeat(8000); // ~2000 tokens
const cc: { type: string; ttl?: string } = { type: 'ephemeral' };

function request(messages: Array<{ role: string; content: unknown[] }>, system_cached = true) {
  return {
    model: 'claude-test',
    system: [{ type: 'text', text: LONG, ...(system_cached ? { cache_control: cc } : {}) }],
    messages,
  };
}

const user = (text: string, cached = false) => ({
  role: 'user',
  content: [{ type: 'text', text, ...(cached ? { cache_control: cc } : {}) }],
});
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });

describe('AnthropicCache', () => {
  it('writes the prefix up to a breakpoint, then reads it on a later match', () => {
    const cache = new AnthropicCache();
    const first = cache.bill(request([user('hello')]));
    expect(first.cache_read_tokens).toBe(0);
    expect(first.cache_write_tokens).toBeGreaterThan(1900);
    const second = cache.bill(request([user('hello again')]));
    expect(second.cache_read_tokens).toBe(first.cache_write_tokens);
    expect(second.cache_write_tokens).toBe(0);
  });

  it('moves the cache point along a conversation with a breakpoint on the newest message', () => {
    const cache = new AnthropicCache();
    const turn1 = [user('first question', true)];
    const one = cache.bill(request(turn1));
    const turn2 = [user('first question'), assistant('an answer'), user('second', true)];
    const two = cache.bill(request(turn2));
    // everything up to the first question is read; the answer and the second message are written
    expect(two.cache_read_tokens).toBe(one.cache_write_tokens);
    expect(two.cache_write_tokens).toBeGreaterThan(0);
    expect(two.input_tokens).toBe(1);
  });

  it('caches nothing below the minimum cacheable length', () => {
    const cache = new AnthropicCache({ min_tokens: 4096 });
    const body = request([user('hi')]);
    expect(cache.bill(body).cache_write_tokens).toBe(0);
    expect(cache.bill(body).cache_read_tokens).toBe(0);
  });

  it('reads nothing without a breakpoint, and a changed byte before the point misses', () => {
    const cache = new AnthropicCache();
    cache.bill(request([user('a')]));
    expect(cache.bill(request([user('a')], false)).cache_read_tokens).toBe(0);
    const changed = request([user('a')]);
    changed.system[0] = { type: 'text', text: `${LONG}!`, cache_control: cc };
    expect(cache.bill(changed).cache_read_tokens).toBe(0);
  });

  it('lets an entry expire after its TTL, 1h entries living longer', () => {
    let now = 0;
    const cache = new AnthropicCache({ now: () => now });
    cache.bill(request([user('a')]));
    now = 6 * 60_000;
    expect(cache.bill(request([user('a')])).cache_read_tokens).toBe(0);
    const long = request([user('b')]);
    long.system[0] = { type: 'text', text: LONG, cache_control: { type: 'ephemeral', ttl: '1h' } };
    cache.bill(long);
    now += 50 * 60_000;
    expect(cache.bill(long).cache_read_tokens).toBeGreaterThan(0);
  });

  it('says which part of a write was made by a 1 hour breakpoint', () => {
    const cache = new AnthropicCache();
    const mixed = request([user('a', true)]);
    mixed.system[0] = { type: 'text', text: LONG, cache_control: { type: 'ephemeral', ttl: '1h' } };
    const bill = cache.bill(mixed);
    // the system prompt was written by its 1 hour breakpoint, the message by a 5 minute one
    expect(bill.cache_write_1h_tokens).toBeGreaterThan(1990); // ~2000 tokens of system prompt
    expect(bill.cache_write_tokens).toBeGreaterThan(bill.cache_write_1h_tokens);
    expect(new AnthropicCache().bill(request([user('a')])).cache_write_1h_tokens).toBe(0);
  });

  it('refuses more than four breakpoints', () => {
    const cache = new AnthropicCache();
    const body = request([
      user('1', true),
      assistant('2'),
      user('3', true),
      assistant('4'),
      user('5', true),
      assistant('6'),
      user('7', true),
    ]);
    expect(() => cache.bill(body)).toThrow(CacheRuleError);
  });
});

import { describe, expect, it } from 'vitest';
import { Deduper } from './dedupe.js';

describe('Deduper', () => {
  it('drops a key seen within the TTL and lets it through after', () => {
    let now = 1000;
    const deduper = new Deduper({ ttl_ms: 100, now: () => now });
    expect(deduper.check_and_remember('a')).toBe(false);
    expect(deduper.check_and_remember('a')).toBe(true);
    now += 99;
    expect(deduper.check_and_remember('a')).toBe(true);
    now += 1;
    expect(deduper.check_and_remember('a')).toBe(false);
  });

  it('holds at most max_entries keys, forgetting the oldest', () => {
    const deduper = new Deduper({ max_entries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) deduper.check_and_remember(key);
    expect(deduper.size).toBe(3);
    expect(deduper.check_and_remember('a')).toBe(false);
    expect(deduper.check_and_remember('d')).toBe(true);
  });

  it('expires old keys as new ones arrive', () => {
    let now = 0;
    const deduper = new Deduper({ ttl_ms: 10, now: () => now });
    for (let index = 0; index < 100; index += 1) deduper.check_and_remember(`k${index}`);
    now = 50;
    deduper.check_and_remember('fresh');
    expect(deduper.size).toBe(1);
  });

  it('forgets a key on request', () => {
    const deduper = new Deduper();
    deduper.check_and_remember('a');
    deduper.forget('a');
    expect(deduper.check_and_remember('a')).toBe(false);
  });
});

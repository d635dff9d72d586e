import { describe, expect, it } from 'vitest';
import { SenderRateLimit } from './rate_limit.js';

describe('SenderRateLimit', () => {
  it('says slow down once per excess, not on every message', () => {
    let now = 0;
    const limit = new SenderRateLimit({ burst: 2, per_minute: 60, now: () => now });
    expect(limit.check('u')).toBe('ok');
    expect(limit.check('u')).toBe('ok');
    expect(limit.check('u')).toBe('limited_notify');
    expect(limit.check('u')).toBe('limited_silent');
    expect(limit.check('u')).toBe('limited_silent');
    expect(limit.check('other')).toBe('ok');
    now += 1000; // one token back
    expect(limit.check('u')).toBe('ok');
    expect(limit.check('u')).toBe('limited_notify');
  });

  it('tracks at most max_senders', () => {
    const limit = new SenderRateLimit({ burst: 1, per_minute: 1, max_senders: 2 });
    expect(limit.check('a')).toBe('ok');
    expect(limit.check('b')).toBe('ok');
    expect(limit.check('c')).toBe('ok');
    // 'a' was dropped, so it starts with a full bucket again
    expect(limit.check('a')).toBe('ok');
    expect(limit.check('c')).toBe('limited_notify');
  });
});

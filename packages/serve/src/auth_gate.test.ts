import { describe, expect, it } from 'vitest';
import { AuthGate, make_token } from './auth_gate.js';

describe('AuthGate', () => {
  it('takes the right token and refuses a wrong, a longer or a missing one', () => {
    const token = make_token();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const gate = new AuthGate(token);
    expect(gate.check(token)).toEqual({ ok: true });
    expect(gate.check(`${token}x`)).toEqual({ ok: false, reason: 'wrong' });
    expect(gate.check(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(gate.failures).toBe(2);
  });

  it('after a burst of failures limits the failing attempts only: the right token always gets in', () => {
    let now = 0;
    const gate = new AuthGate('secret', { burst: 3, refill_ms: 1000, now: () => now });
    for (let attempt = 0; attempt < 3; attempt += 1) expect(gate.check('guess').ok).toBe(false);
    expect(gate.check('guess')).toEqual({ ok: false, reason: 'limited', retry_after_ms: 1000 });
    expect(gate.check('secret')).toEqual({ ok: true });
    now = 400;
    expect(gate.check('guess')).toEqual({ ok: false, reason: 'limited', retry_after_ms: 600 });
    expect(gate.check('secret')).toEqual({ ok: true });
    now = 1000;
    expect(gate.check('guess')).toEqual({ ok: false, reason: 'wrong' });
    expect(gate.check('guess')).toMatchObject({ reason: 'limited' });
    expect(gate.failures).toBe(7);
    expect(gate.limited).toBe(3);
  });
});

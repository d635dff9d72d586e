import { describe, expect, it } from 'vitest';
import { safe_json_parse, safe_stringify, truncate_text } from './util.js';

describe('safe_json_parse', () => {
  it('parses JSON and reports what is not', () => {
    expect(safe_json_parse('{"a":[1,null]}')).toEqual({ ok: true, value: { a: [1, null] } });
    expect(safe_json_parse('"x"')).toEqual({ ok: true, value: 'x' });
    const bad = safe_json_parse('{"a":');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/JSON/);
    expect(safe_json_parse('')).toMatchObject({ ok: false });
    expect(safe_json_parse(undefined as never)).toEqual({
      ok: false,
      error: 'expected JSON text, got undefined',
    });
  });
});

describe('safe_stringify', () => {
  it('marks cycles, keeps repeated references, writes BigInt as text', () => {
    const shared = { n: 1 };
    const value: Record<string, unknown> = { big: 12n, a: shared, b: shared, list: [shared] };
    value.self = value;
    expect(JSON.parse(safe_stringify(value))).toEqual({
      big: '12',
      a: { n: 1 },
      b: { n: 1 },
      list: [{ n: 1 }],
      self: '[Circular]',
    });
    const nested: { child: { parent?: unknown } } = { child: {} };
    nested.child.parent = nested;
    expect(safe_stringify(nested)).toBe('{"child":{"parent":"[Circular]"}}');
  });

  it('never throws', () => {
    expect(safe_stringify(undefined)).toBe('undefined');
    expect(safe_stringify(() => 1)).toMatch(/=>/);
    expect(safe_stringify(new Error('bad'))).toBe('{"name":"Error","message":"bad"}');
    const hostile = {
      toJSON() {
        throw new Error('no');
      },
    };
    expect(safe_stringify(hostile)).toBe('[Unserializable: no]');
    expect(safe_stringify({ a: 1 }, 2)).toBe('{\n  "a": 1\n}');
  });
});

describe('truncate_text', () => {
  it('returns short text as it is', () => {
    expect(truncate_text('hello', 5)).toBe('hello');
  });

  it('keeps head and tail and says how much was cut', () => {
    const text = `HEAD${'x'.repeat(12_345)}TAIL`;
    const clamped = truncate_text(text, 100);
    expect(clamped.length).toBeLessThanOrEqual(100);
    expect(clamped.startsWith('HEAD')).toBe(true);
    expect(clamped.endsWith('TAIL')).toBe(true);
    const cut = Number(/…\[cut (\d+) chars\]…/.exec(clamped)?.[1]);
    const marker = clamped.match(/\n…\[cut \d+ chars\]…\n/)?.[0] ?? '';
    expect(clamped.length - marker.length + cut).toBe(text.length);
  });

  it('never splits a surrogate pair', () => {
    const text = '😀'.repeat(100);
    for (let max = 0; max < 60; max++) {
      const clamped = truncate_text(text, max);
      expect(clamped.length).toBeLessThanOrEqual(max);
      // a lone surrogate would not survive a UTF-8 round trip
      expect(Buffer.from(clamped, 'utf8').toString('utf8')).toBe(clamped);
    }
  });

  it('keeps only the head when the limit cannot hold the marker', () => {
    expect(truncate_text('abcdefghijklmnopqrstuvwxyz', 5)).toBe('abcde');
  });

  it('refuses a limit that is not a non-negative integer', () => {
    expect(() => truncate_text('abc', -1)).toThrow(RangeError);
    expect(() => truncate_text('abc', 1.5)).toThrow(RangeError);
  });
});

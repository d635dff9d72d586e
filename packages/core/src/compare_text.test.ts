import { describe, expect, it } from 'vitest';
import { compare_text } from './compare_text.js';

describe('compare_text', () => {
  it('orders by code units, the same on every machine', () => {
    expect(['beta', 'Zeta', 'alpha', 'a-b', 'a_b', 'ab'].sort(compare_text)).toEqual([
      'Zeta',
      'a-b',
      'a_b',
      'ab',
      'alpha',
      'beta',
    ]);
  });

  it('says equal strings are equal, and orders ISO timestamps by time', () => {
    expect(compare_text('same', 'same')).toBe(0);
    expect(compare_text('2026-12-05T10:00:00.000Z', '2026-12-06T09:00:00.000Z')).toBeLessThan(0);
    expect(compare_text('b', 'a')).toBeGreaterThan(0);
  });
});

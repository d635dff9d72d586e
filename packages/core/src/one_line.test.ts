import { describe, expect, it } from 'vitest';
import { one_line } from './one_line.js';

describe('one_line', () => {
  it('collapses whitespace and trims', () => {
    expect(one_line('  a\n\t b  ')).toBe('a b');
  });

  it('keeps text within the limit (200 by default), marking a cut with …', () => {
    expect(one_line('x'.repeat(200))).toBe('x'.repeat(200));
    expect(one_line('x'.repeat(201))).toBe(`${'x'.repeat(199)}…`);
    expect(one_line('abcdef', 4)).toBe('abc…');
    expect(one_line('a  b   c', 3)).toBe('a…');
  });

  it('counts code points and never splits a surrogate pair', () => {
    expect(one_line('🙂🙂🙂', 3)).toBe('🙂🙂🙂');
    expect(one_line('🙂🙂🙂🙂', 3)).toBe('🙂🙂…');
    expect(one_line('a🙂b', 2)).toBe('a…');
  });
});

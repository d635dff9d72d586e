import { describe, expect, it } from 'vitest';
import { excerpt } from './excerpt.js';

describe('excerpt', () => {
  it('collapses whitespace and trims', () => {
    expect(excerpt('  a\n\t b  ')).toBe('a b');
  });

  it('cuts at the limit (200 by default) and marks the cut', () => {
    expect(excerpt('x'.repeat(200))).toBe('x'.repeat(200));
    expect(excerpt('x'.repeat(201))).toBe(`${'x'.repeat(200)}…`);
    expect(excerpt('abcdef', 3)).toBe('abc…');
  });
});

import { describe, expect, it } from 'vitest';
import { edit_distance, MAX_EDIT_DISTANCE_LENGTH } from './edit_distance.js';

describe('edit_distance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(edit_distance('kitten', 'sitting')).toBe(3);
    expect(edit_distance('', 'abc')).toBe(3);
    expect(edit_distance('abc', '')).toBe(3);
    expect(edit_distance('same', 'same')).toBe(0);
    expect(edit_distance('read_fil', 'read_file')).toBe(1);
  });

  it('does not compare very long strings letter by letter', () => {
    const long = 'a'.repeat(MAX_EDIT_DISTANCE_LENGTH + 1);
    expect(edit_distance(long, 'b')).toBe(long.length);
  });
});

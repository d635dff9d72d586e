import { describe, expect, it } from 'vitest';
import { count_line_changes } from './line_counts.js';

describe('count_line_changes', () => {
  it('counts added and removed lines as a line diff does', () => {
    expect(count_line_changes('', 'a\nb\n')).toEqual({ added: 2, removed: 0 });
    expect(count_line_changes('a\nb\n', '')).toEqual({ added: 0, removed: 2 });
    expect(count_line_changes('a\nb\nc\n', 'a\nB\nc\n')).toEqual({ added: 1, removed: 1 });
    expect(count_line_changes('a\nb\nc\nd\n', 'a\nc\nd\ne\n')).toEqual({ added: 1, removed: 1 });
    expect(count_line_changes('same\n', 'same\n')).toEqual({ added: 0, removed: 0 });
    expect(count_line_changes('x\ny', 'x\ny\n')).toEqual({ added: 0, removed: 0 });
  });

  it('finds the shortest script when lines move', () => {
    const before = ['1', '2', '3', '4', '5', '6'].join('\n');
    const after = ['4', '5', '6', '1', '2', '3'].join('\n');
    expect(count_line_changes(before, after)).toEqual({ added: 3, removed: 3 });
  });

  it('estimates past its edit limit', () => {
    const before = Array.from({ length: 30_000 }, (_, i) => `a${i}`).join('\n');
    const after = Array.from({ length: 30_000 }, (_, i) => `b${i}`).join('\n');
    expect(count_line_changes(before, after)).toEqual({ added: 30_000, removed: 30_000 });
  });
});

import { describe, expect, it } from 'vitest';
import { arguments_object, split_bytes, split_into, split_text } from './split.js';

describe('split helpers', () => {
  it('never splits a surrogate pair', () => {
    expect(split_text('a🙂b🙂', 1)).toEqual(['a', '🙂', 'b', '🙂']);
    expect(split_text('', 3)).toEqual([]);
  });

  it('splits into near-equal pieces', () => {
    expect(split_into('{"a":12}', 3)).toEqual(['{"a', '":1', '2}']);
    expect(split_into('ab', 5)).toEqual(['a', 'b']);
  });

  it('splits bytes and parses argument objects', () => {
    expect(split_bytes(new Uint8Array([1, 2, 3, 4, 5]), 2).map((part) => [...part])).toEqual([
      [1, 2],
      [3, 4],
      [5],
    ]);
    expect(arguments_object('{"x":1}')).toEqual({ x: 1 });
    expect(arguments_object('not json')).toEqual({});
  });
});

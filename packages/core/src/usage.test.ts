import { describe, expect, it } from 'vitest';
import { add_usage, empty_usage } from './usage.js';

describe('usage', () => {
  it('starts at zero, fresh each time', () => {
    const a = empty_usage();
    a.input_tokens = 5;
    expect(empty_usage()).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it('adds the required counts, and an optional count when either side has it', () => {
    const a = { input_tokens: 10, output_tokens: 2, cache_read_tokens: 4 };
    const b = { input_tokens: 1, output_tokens: 3, reasoning_tokens: 7 };
    expect(add_usage(a, b)).toEqual({
      input_tokens: 11,
      output_tokens: 5,
      cache_read_tokens: 4,
      reasoning_tokens: 7,
    });
    expect(a).toEqual({ input_tokens: 10, output_tokens: 2, cache_read_tokens: 4 });
  });

  it('sums the 1 hour cache writes apart, so a session total prices them right', () => {
    const a = {
      input_tokens: 10,
      output_tokens: 0,
      cache_write_tokens: 8,
      cache_write_1h_tokens: 8,
    };
    const b = { input_tokens: 10, output_tokens: 0, cache_write_tokens: 5 };
    expect(add_usage(a, b)).toEqual({
      input_tokens: 20,
      output_tokens: 0,
      cache_write_tokens: 13,
      cache_write_1h_tokens: 8,
    });
  });

  it('treats a missing usage as zero and returns a copy', () => {
    const a = { input_tokens: 1, output_tokens: 1 };
    const sum = add_usage(a, undefined);
    expect(sum).toEqual(a);
    expect(sum).not.toBe(a);
  });
});

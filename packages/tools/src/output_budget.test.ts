import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_OUTPUT_CHARS } from './executor.js';
import { output_budget } from './output_budget.js';

const signal = new AbortController().signal;

describe('output_budget', () => {
  it('stays 500 characters under the executor limit, or its default', () => {
    expect(output_budget({ work_dir: '/w', signal, max_output_chars: 10_000 })).toBe(9_500);
    expect(output_budget({ work_dir: '/w', signal })).toBe(DEFAULT_MAX_OUTPUT_CHARS - 500);
  });

  it('never goes under 1 000', () => {
    expect(output_budget({ work_dir: '/w', signal, max_output_chars: 1_200 })).toBe(1_000);
  });
});

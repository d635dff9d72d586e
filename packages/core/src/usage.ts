import type { Usage } from './types.js';

const OPTIONAL_COUNTS = [
  'cache_read_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const satisfies readonly (keyof Usage)[];

/** A usage of zero tokens; a fresh object each call. */
export function empty_usage(): Usage {
  return { input_tokens: 0, output_tokens: 0 };
}

/**
 * The sum of two usages, as a new object. An optional count is in the sum when either side has
 * it; a missing `b` counts as zero. Never throws, never modifies its arguments.
 */
export function add_usage(a: Usage, b: Usage | undefined): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + (b?.input_tokens ?? 0),
    output_tokens: a.output_tokens + (b?.output_tokens ?? 0),
  };
  for (const count of OPTIONAL_COUNTS) {
    const left = a[count];
    const right = b?.[count];
    if (left !== undefined || right !== undefined) sum[count] = (left ?? 0) + (right ?? 0);
  }
  return sum;
}

import type { Usage } from '@lich/core';

const OPTIONAL_FIELDS = [
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const satisfies readonly (keyof Usage)[];

/** A usage of zero tokens. Returns a fresh object each call. */
export function empty_usage(): Usage {
  return { input_tokens: 0, output_tokens: 0 };
}

/**
 * The sum of two usages. Optional counts appear in the sum when either side has them.
 * Never throws; a missing side counts as zero.
 */
export function add_usage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return { ...a };
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
  for (const field of OPTIONAL_FIELDS) {
    if (a[field] !== undefined || b[field] !== undefined) {
      sum[field] = (a[field] ?? 0) + (b[field] ?? 0);
    }
  }
  return sum;
}

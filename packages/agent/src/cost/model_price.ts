import type { Usage } from '@lich/core';

/**
 * The price of one model in dollars per million tokens. `cache_read` and `cache_write` default to
 * `input` when left out (a provider that bills no cache difference).
 */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/**
 * The dollars a usage costs at `price`. Lich's `input_tokens` is the whole prompt, so the cached
 * parts are taken out of it and billed at their own prices. Pure; never throws.
 */
export function cost_at(usage: Usage, price: ModelPrice): number {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const fresh = Math.max(0, usage.input_tokens - read - write);
  const dollars =
    fresh * price.input +
    read * (price.cache_read ?? price.input) +
    write * (price.cache_write ?? price.input) +
    usage.output_tokens * price.output;
  return dollars / 1_000_000;
}

/**
 * A sum of costs where one unknown makes the whole unknown (`null`): a total is never understated.
 */
export function add_cost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** Dollars as people read them: `$0.0123`, `$1.25`, or `unknown`. Never throws. */
export function format_cost(cost: number | null | undefined): string {
  if (cost === null || cost === undefined || !Number.isFinite(cost)) return 'unknown';
  if (cost === 0) return '$0';
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  if (cost < 100) return `$${cost.toFixed(2)}`;
  return `$${Math.round(cost)}`;
}

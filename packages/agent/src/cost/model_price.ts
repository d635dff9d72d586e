import type { Usage } from '@lich/core';

/**
 * The price of one model in dollars per million tokens. `cache_read` and `cache_write` default to
 * `input` when left out (a provider that bills no cache difference); `cache_write` is the 5 minute
 * write, `cache_write_1h` the 1 hour one (Anthropic: 1.25× and 2× input), which defaults to
 * `cache_write`.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
  cache_write_1h?: number;
}

/**
 * The dollars a usage costs at `price`. Lich's `input_tokens` is the whole prompt, so the cached
 * parts are taken out of it and billed at their own prices; of the cache writes, the
 * `cache_write_1h_tokens` are billed at `cache_write_1h`. Pure; never throws.
 */
export function cost_at(usage: Usage, price: ModelPrice): number {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const hour = Math.min(write, usage.cache_write_1h_tokens ?? 0);
  const fresh = Math.max(0, usage.input_tokens - read - write);
  const write_price = price.cache_write ?? price.input;
  const dollars =
    fresh * price.input +
    read * (price.cache_read ?? price.input) +
    (write - hour) * write_price +
    hour * (price.cache_write_1h ?? write_price) +
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

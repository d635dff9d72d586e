import type { Usage } from '@lich/core';
import type { AnthropicUsage } from './anthropic_api.js';

/**
 * Maps Anthropic token counts to Lich's `Usage`.
 *
 * Contract: never throws; `undefined` when there are no counts. Anthropic's `input_tokens`
 * leaves out the cached parts, so Lich's `input_tokens` adds them back (the whole prompt, as with
 * the other providers); `cache_read_tokens` / `cache_write_tokens` say how much of it was read
 * from or written to the cache, and `cache_write_1h_tokens` how much of the write had a 1 hour TTL
 * (`cache_creation.ephemeral_1h_input_tokens`), which is billed higher.
 */
export function map_anthropic_usage(usage: AnthropicUsage | null | undefined): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const cache_read = count(usage.cache_read_input_tokens);
  const cache_write = count(usage.cache_creation_input_tokens);
  const result: Usage = {
    input_tokens: count(usage.input_tokens) + cache_read + cache_write,
    output_tokens: count(usage.output_tokens),
  };
  if (cache_read > 0) result.cache_read_tokens = cache_read;
  if (cache_write > 0) result.cache_write_tokens = cache_write;
  const hour = Math.min(cache_write, count(usage.cache_creation?.ephemeral_1h_input_tokens));
  if (hour > 0) result.cache_write_1h_tokens = hour;
  return result;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

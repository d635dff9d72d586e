import type { Usage } from '@lich/core';
import type { OpenAiUsage } from './openai_api.js';

/**
 * Maps OpenAI-compatible token counts to Lich's `Usage`.
 *
 * Contract: never throws; `undefined` when the server sent no counts. `input_tokens` is the whole
 * prompt (`prompt_tokens`, which already includes `cached_tokens`); `output_tokens` includes the
 * reasoning tokens, which are also reported apart when the server says so.
 */
export function map_openai_usage(usage: OpenAiUsage | null | undefined): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const result: Usage = {
    input_tokens: count(usage.prompt_tokens),
    output_tokens: count(usage.completion_tokens),
  };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number' && cached > 0) result.cache_read_tokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number' && reasoning > 0) result.reasoning_tokens = reasoning;
  return result;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

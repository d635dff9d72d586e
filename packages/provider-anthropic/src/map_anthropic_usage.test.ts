import { describe, expect, it } from 'vitest';
import { map_anthropic_usage } from './map_anthropic_usage.js';

describe('map_anthropic_usage', () => {
  it('reports the whole prompt, and which part of the cache write had a 1 hour TTL', () => {
    expect(
      map_anthropic_usage({
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 3000,
        cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      }),
    ).toEqual({
      input_tokens: 4010,
      output_tokens: 5,
      cache_read_tokens: 1000,
      cache_write_tokens: 3000,
      cache_write_1h_tokens: 2000,
    });
    // only 5 minute writes, or no split reported: no 1 hour part
    expect(
      map_anthropic_usage({
        input_tokens: 10,
        output_tokens: 5,
        cache_creation_input_tokens: 3000,
        cache_creation: { ephemeral_5m_input_tokens: 3000, ephemeral_1h_input_tokens: 0 },
      }),
    ).toEqual({ input_tokens: 3010, output_tokens: 5, cache_write_tokens: 3000 });
    expect(
      map_anthropic_usage({ input_tokens: 1, output_tokens: 1, cache_creation: null }),
    ).toEqual({
      input_tokens: 1,
      output_tokens: 1,
    });
  });
});

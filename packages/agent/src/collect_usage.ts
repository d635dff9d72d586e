import type { AgentEvent, Usage } from '@lich/core';

/** A usage with every count at zero. */
export function zero_usage(): Usage {
  return { input_tokens: 0, output_tokens: 0 };
}

/**
 * Adds one call's usage into `total` (in place) and returns it. Optional counts are summed when
 * either side has them. Never throws.
 */
export function add_usage_into(total: Usage, usage: Usage | undefined): Usage {
  if (usage === undefined) return total;
  total.input_tokens += usage.input_tokens;
  total.output_tokens += usage.output_tokens;
  for (const key of ['cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const) {
    const value = usage[key];
    if (value !== undefined) total[key] = (total[key] ?? 0) + value;
  }
  return total;
}

/**
 * A listener that sums the usage of every `llm_end` event into `total`: what `Agent.run` attaches
 * for the length of one run.
 */
export function collect_usage(total: Usage): (event: AgentEvent) => void {
  return (event) => {
    if (event.type === 'llm_end') add_usage_into(total, event.usage);
  };
}

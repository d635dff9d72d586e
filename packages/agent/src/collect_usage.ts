import { type AgentEvent, add_usage, type Usage } from '@lich/core';

/**
 * A listener that sums the usage of every `llm_end` event into `total` (in place): what
 * `Agent.run` attaches for the length of one run. Never throws.
 */
export function collect_usage(total: Usage): (event: AgentEvent) => void {
  return (event) => {
    if (event.type === 'llm_end' && event.usage !== undefined) {
      Object.assign(total, add_usage(total, event.usage));
    }
  };
}

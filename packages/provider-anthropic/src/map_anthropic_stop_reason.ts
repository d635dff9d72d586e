import type { FinishReason } from '@lich/core';

/**
 * Maps an Anthropic `stop_reason` to Lich's vocabulary. Never throws; unknown reasons (e.g.
 * `pause_turn`) are `other`, and a turn with tool calls is `tool_calls` unless it was cut short.
 */
export function map_anthropic_stop_reason(
  reason: string | null | undefined,
  has_tool_calls: boolean,
): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    case 'tool_use':
      return 'tool_calls';
  }
  if (has_tool_calls) return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence' || reason == null) return 'stop';
  return 'other';
}

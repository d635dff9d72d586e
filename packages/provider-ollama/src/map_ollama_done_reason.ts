import type { FinishReason } from '@lich/core';

/**
 * Maps an Ollama `done_reason` to Lich's vocabulary. Never throws; a turn with tool calls is
 * `tool_calls` unless it was cut by `length`, and unknown reasons (`load`, `unload`) are `other`.
 */
export function map_ollama_done_reason(
  reason: string | undefined,
  has_tool_calls: boolean,
): FinishReason {
  if (reason === 'length') return 'length';
  if (has_tool_calls) return 'tool_calls';
  if (reason === 'stop' || reason === undefined || reason === '') return 'stop';
  return 'other';
}

import type { FinishReason } from '@lich/core';

/**
 * Maps an OpenAI-compatible `finish_reason` to Lich's vocabulary.
 *
 * Contract: never throws. `length` and `content_filter` are kept as they are; otherwise a turn
 * that asked for tools is `tool_calls` even when the server said `stop` (several
 * OpenAI-compatible servers do). A missing reason is `stop`; unknown reasons are `other`.
 */
export function map_openai_finish_reason(
  reason: string | null | undefined,
  has_tool_calls: boolean,
): FinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  if (has_tool_calls) return 'tool_calls';
  switch (reason) {
    case 'stop':
    case 'eos':
    case null:
    case undefined:
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

import type { AssistantMessage, ChatResult } from '@lich/core';
import { type CallContext, ProviderError } from '@lich/providers';
import { collect_tool_calls, type ToolCallSlot } from './collect_tool_calls.js';
import { map_openai_finish_reason } from './map_openai_finish_reason.js';
import { map_openai_usage } from './map_openai_usage.js';
import type { OpenAiUsage } from './openai_api.js';

/** Everything a turn produced, streamed or not. */
export interface OpenAiTurn {
  text: string;
  reasoning: string;
  slots: readonly (ToolCallSlot | undefined)[];
  finish_reason: string | null | undefined;
  usage: OpenAiUsage | null | undefined;
  /** The model the server says answered. */
  model: string | undefined;
}

/**
 * Builds the `ChatResult` of a finished turn.
 *
 * Contract: throws a `ProviderError` of kind `parse` (never anything else) when a tool call has
 * no name; `delivered` is copied into that error. `tool_calls` and `reasoning` are present only
 * when non-empty.
 */
export function build_openai_result(
  turn: OpenAiTurn,
  context: CallContext,
  delivered = false,
): ChatResult {
  const collected = collect_tool_calls(turn.slots);
  if (!collected.ok) {
    throw new ProviderError({
      kind: 'parse',
      provider: context.provider,
      model: context.model,
      cause: new Error(collected.error),
      delivered,
    });
  }
  const message: AssistantMessage = { role: 'assistant', content: turn.text };
  if (collected.tool_calls.length > 0) message.tool_calls = collected.tool_calls;
  if (turn.reasoning !== '') message.reasoning = turn.reasoning;
  const result: ChatResult = {
    message,
    finish_reason: map_openai_finish_reason(turn.finish_reason, collected.tool_calls.length > 0),
    provider: context.provider,
    model: turn.model || context.model,
  };
  const usage = map_openai_usage(turn.usage);
  if (usage) result.usage = usage;
  return result;
}

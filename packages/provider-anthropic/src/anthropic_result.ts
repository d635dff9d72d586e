import type { AssistantMessage, ChatResult, ReasoningPart, ToolCall } from '@lich/core';
import { type CallContext, ProviderError } from '@lich/providers';
import type { AnthropicUsage } from './anthropic_api.js';
import { map_anthropic_stop_reason } from './map_anthropic_stop_reason.js';
import { map_anthropic_usage } from './map_anthropic_usage.js';

/** One finished content block; tool input is kept as the JSON text the model wrote. */
export type AnthropicTurnBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; arguments: string };

/** Everything a turn produced, streamed or not. */
export interface AnthropicTurn {
  blocks: readonly AnthropicTurnBlock[];
  stop_reason: string | null | undefined;
  usage: AnthropicUsage | null | undefined;
  model: string | undefined;
}

/**
 * Builds the `ChatResult` of a finished turn: text blocks joined as `content`, thinking joined
 * as `reasoning` and kept block by block (signatures and redacted data included) in
 * `reasoning_parts` so the next turn can send them back.
 *
 * Contract: throws only a `ProviderError` of kind `parse`, for a tool call with no name (with
 * `delivered` copied in). Optional fields are present only when non-empty.
 */
export function build_anthropic_result(
  turn: AnthropicTurn,
  context: CallContext,
  delivered = false,
): ChatResult {
  let text = '';
  let reasoning = '';
  const parts: ReasoningPart[] = [];
  const tool_calls: ToolCall[] = [];
  for (const block of turn.blocks) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') {
      reasoning += block.thinking;
      parts.push({ text: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') parts.push({ text: '', redacted: block.data });
    else {
      if (!block.name.trim()) {
        throw new ProviderError({
          kind: 'parse',
          ...context,
          cause: new Error(`tool_use block ${tool_calls.length} has no name`),
          delivered,
        });
      }
      tool_calls.push({
        id: block.id || `toolu_${crypto.randomUUID()}`,
        name: block.name,
        arguments: block.arguments.trim() || '{}',
      });
    }
  }
  const message: AssistantMessage = { role: 'assistant', content: text };
  if (tool_calls.length > 0) message.tool_calls = tool_calls;
  if (reasoning !== '') message.reasoning = reasoning;
  if (parts.length > 0) message.reasoning_parts = parts;
  const result: ChatResult = {
    message,
    finish_reason: map_anthropic_stop_reason(turn.stop_reason, tool_calls.length > 0),
    provider: context.provider,
    model: turn.model || context.model,
  };
  const usage = map_anthropic_usage(turn.usage);
  if (usage) result.usage = usage;
  return result;
}

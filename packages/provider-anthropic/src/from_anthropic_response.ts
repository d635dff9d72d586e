import type { ChatResult } from '@lich/core';
import { type CallContext, ProviderError } from '@lich/providers';
import type { AnthropicResponse } from './anthropic_api.js';
import { type AnthropicTurnBlock, build_anthropic_result } from './anthropic_result.js';
import { read_anthropic_error } from './read_anthropic_error.js';

/**
 * Maps the body of a non-streaming Messages API response to a `ChatResult`.
 *
 * Contract: throws only `ProviderError`: kind `http` for an error body in a 200, kind `parse`
 * when there is no `content` array or a tool call has no name. Block types Lich does not use
 * (server tool results) are skipped.
 */
export function from_anthropic_response(body: unknown, context: CallContext): ChatResult {
  const response = (typeof body === 'object' && body !== null ? body : {}) as AnthropicResponse;
  if (response.type === 'error') {
    throw new ProviderError({ kind: 'http', ...context, ...read_anthropic_error(body) });
  }
  if (!Array.isArray(response.content)) {
    throw new ProviderError({
      kind: 'parse',
      ...context,
      cause: new Error('the response has no content array'),
    });
  }
  const blocks: AnthropicTurnBlock[] = [];
  for (const block of response.content) {
    if (block.type === 'text') blocks.push({ type: 'text', text: block.text ?? '' });
    else if (block.type === 'thinking') {
      blocks.push({
        type: 'thinking',
        thinking: block.thinking ?? '',
        signature: block.signature ?? '',
      });
    } else if (block.type === 'redacted_thinking') {
      blocks.push({ type: 'redacted_thinking', data: block.data ?? '' });
    } else if (block.type === 'tool_use') {
      blocks.push({
        type: 'tool_use',
        id: block.id ?? '',
        name: block.name ?? '',
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  return build_anthropic_result(
    { blocks, stop_reason: response.stop_reason, usage: response.usage, model: response.model },
    context,
  );
}

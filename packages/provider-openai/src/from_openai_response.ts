import type { ChatResult } from '@lich/core';
import { type CallContext, ProviderError } from '@lich/providers';
import { arguments_text, type ToolCallSlot } from './collect_tool_calls.js';
import type { OpenAiResponse } from './openai_api.js';
import { build_openai_result } from './openai_result.js';
import { read_openai_error } from './read_openai_error.js';

/**
 * Maps the body of a non-streaming chat completion to a `ChatResult`.
 *
 * Contract: throws only `ProviderError`: kind `http` when a 200 carries an error body, kind
 * `parse` when the body has no choice with a message or a tool call has no name. Reasoning is
 * read from `reasoning_content`, else `reasoning`.
 */
export function from_openai_response(body: unknown, context: CallContext): ChatResult {
  const response = (typeof body === 'object' && body !== null ? body : {}) as OpenAiResponse;
  if (response.error !== undefined && response.error !== null) {
    const info = read_openai_error(response);
    throw new ProviderError({ kind: 'http', ...context, ...info });
  }
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = choice?.message;
  if (typeof message !== 'object' || message === null) {
    throw new ProviderError({
      kind: 'parse',
      ...context,
      cause: new Error('the response has no choices[0].message'),
    });
  }
  const slots: ToolCallSlot[] = (message.tool_calls ?? []).map((call) => {
    const slot: ToolCallSlot = { arguments: arguments_text(call.function?.arguments) };
    if (call.id) slot.id = call.id;
    if (call.function?.name) slot.name = call.function.name;
    return slot;
  });
  return build_openai_result(
    {
      text: typeof message.content === 'string' ? message.content : '',
      reasoning: pick_reasoning(message.reasoning_content, message.reasoning),
      slots,
      finish_reason: choice?.finish_reason,
      usage: response.usage,
      model: response.model,
    },
    context,
  );
}

/**
 * The reasoning text of a message or delta: `reasoning_content` (DeepSeek, vLLM, llama.cpp) when
 * it is a non-empty string, else `reasoning` (OpenRouter, newer vLLM). Servers in transition send
 * both with the same text, so they are never added together.
 */
export function pick_reasoning(reasoning_content: unknown, reasoning: unknown): string {
  if (typeof reasoning_content === 'string' && reasoning_content !== '') return reasoning_content;
  if (typeof reasoning === 'string') return reasoning;
  return '';
}

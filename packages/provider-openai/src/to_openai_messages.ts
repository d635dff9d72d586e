import type { Message } from '@lich/core';
import type { OpenAiMessage } from './openai_api.js';

/** Which field, if any, carries an assistant's reasoning back to the server. */
export type OpenAiReasoningField = 'reasoning_content' | 'reasoning';

/**
 * Maps Lich messages to the chat completions `messages` array.
 *
 * Contract: never throws; the input is not mutated. An assistant turn with tool calls and no text
 * has `content: null` (the canonical form); empty tool arguments become `{}`. Tool results keep
 * their `tool_call_id`; the API has no error flag, so `is_error` is carried by the text alone.
 * Reasoning is sent back only under `reasoning_field` (most servers reject or ignore it).
 */
export function to_openai_messages(
  messages: readonly Message[],
  reasoning_field?: OpenAiReasoningField,
): OpenAiMessage[] {
  const result: OpenAiMessage[] = [];
  for (const message of messages) {
    const wire = to_openai_message(message, reasoning_field);
    if (wire !== undefined) result.push(wire);
  }
  return result;
}

/**
 * One message in the wire shape `to_openai_messages` gives it, or `undefined` for a role the API
 * does not know.
 */
export function to_openai_message(
  message: Message,
  reasoning_field: OpenAiReasoningField | undefined,
): OpenAiMessage | undefined {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant': {
      const calls = message.tool_calls ?? [];
      const wire: Extract<OpenAiMessage, { role: 'assistant' }> = {
        role: 'assistant',
        content: message.content === '' && calls.length > 0 ? null : message.content,
      };
      if (calls.length > 0) {
        wire.tool_calls = calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments.trim() || '{}' },
        }));
      }
      if (reasoning_field && message.reasoning) wire[reasoning_field] = message.reasoning;
      return wire;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return undefined;
  }
}

import type { Message, ReasoningPart, ToolDefinition } from '@lich/core';
import type { ResponsesItem, ResponsesRequest } from './responses_api.js';

/**
 * A reasoning item's id and encrypted content, kept in `ReasoningPart.signature` as this
 * provider's own opaque token (the API wants both back when nothing is stored on its side).
 */
export function reasoning_token(id: string, encrypted: string | undefined): string {
  return JSON.stringify({ id, encrypted_content: encrypted });
}

function reasoning_item(part: ReasoningPart): ResponsesItem | undefined {
  if (!part.signature) return undefined;
  try {
    const token = JSON.parse(part.signature) as { id?: unknown; encrypted_content?: unknown };
    if (typeof token.id !== 'string') return undefined;
    const item: Extract<ResponsesItem, { type: 'reasoning' }> = {
      type: 'reasoning',
      id: token.id,
      summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
    };
    if (typeof token.encrypted_content === 'string')
      item.encrypted_content = token.encrypted_content;
    return item;
  } catch {
    return undefined; // another provider's signature: nothing this API can take back
  }
}

/**
 * Maps Lich messages to the Responses API's `instructions` and `input` items.
 *
 * Contract: never throws; the input is not mutated. System messages become `instructions`; an
 * assistant turn sends back its reasoning items (id and encrypted content, as the API requires
 * with `store: false`), its text as an output message and each tool call as a `function_call`;
 * a tool result becomes a `function_call_output` (`is_error` is carried by the text alone).
 */
export function to_responses_input(messages: readonly Message[]): {
  instructions: string | undefined;
  input: ResponsesItem[];
} {
  const system: string[] = [];
  const input: ResponsesItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        input.push({ role: 'user', content: [{ type: 'input_text', text: message.content }] });
        break;
      case 'assistant':
        for (const part of message.reasoning_parts ?? []) {
          const item = reasoning_item(part);
          if (item !== undefined) input.push(item);
        }
        if (message.content !== '') {
          input.push({
            type: 'message',
            role: 'assistant',
            content: [{ type: 'output_text', text: message.content }],
          });
        }
        for (const call of message.tool_calls ?? []) {
          input.push({
            type: 'function_call',
            call_id: call.id,
            name: call.name,
            arguments: call.arguments.trim() || '{}',
          });
        }
        break;
      case 'tool':
        input.push({
          type: 'function_call_output',
          call_id: message.tool_call_id,
          output: message.content,
        });
        break;
    }
  }
  return { instructions: system.length > 0 ? system.join('\n\n') : undefined, input };
}

/** Lich tool definitions as Responses function tools. */
export function to_responses_tools(
  tools: readonly ToolDefinition[],
): NonNullable<ResponsesRequest['tools']> {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
}

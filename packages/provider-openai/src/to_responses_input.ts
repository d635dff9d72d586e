import {
  type ContentPart,
  content_images,
  content_text,
  type Message,
  type ReasoningPart,
  type ToolDefinition,
} from '@lich/core';
import type { ResponsesInputPart, ResponsesItem, ResponsesRequest } from './responses_api.js';

/** Content as input parts: text as `input_text`, pictures as `input_image` with a `data:` URL. */
function input_parts(content: string | readonly ContentPart[]): ResponsesInputPart[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  const parts: ResponsesInputPart[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'input_text', text: part.text });
    else if (part.type === 'image' && part.data !== undefined) {
      parts.push({ type: 'input_image', image_url: `data:${part.media_type};base64,${part.data}` });
    } else if (part.type === 'image')
      parts.push({ type: 'input_text', text: content_text([part]) });
  }
  return parts;
}

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
 * a tool result becomes a `function_call_output` (`is_error` is carried by the text alone), and
 * its pictures follow the run of tool results in one user message (`input_image` parts).
 */
export function to_responses_input(messages: readonly Message[]): {
  instructions: string | undefined;
  input: ResponsesItem[];
} {
  const system: string[] = [];
  const input: ResponsesItem[] = [];
  let tool_images: ResponsesInputPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && tool_images.length > 0) {
      input.push({ role: 'user', content: tool_images });
      tool_images = [];
    }
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        input.push({ role: 'user', content: input_parts(message.content) });
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
          output: content_text(message.content),
        });
        if (content_images(message.content).length > 0) {
          const label = `The pictures the tool ${message.name ?? message.tool_call_id} returned:`;
          tool_images.push(
            { type: 'input_text', text: label },
            ...input_parts(content_images(message.content)),
          );
        }
        break;
    }
  }
  if (tool_images.length > 0) input.push({ role: 'user', content: tool_images });
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

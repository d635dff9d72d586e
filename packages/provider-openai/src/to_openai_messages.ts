import {
  type ContentPart,
  content_images,
  content_text,
  has_images,
  type ImagePart,
  type Message,
} from '@lich/core';
import type { OpenAiMessage, OpenAiUserPart } from './openai_api.js';

/** Which field, if any, carries an assistant's reasoning back to the server. */
export type OpenAiReasoningField = 'reasoning_content' | 'reasoning';

/**
 * Maps Lich messages to the chat completions `messages` array.
 *
 * Contract: never throws; the input is not mutated. An assistant turn with tool calls and no text
 * has `content: null` (the canonical form); empty tool arguments become `{}`. Tool results keep
 * their `tool_call_id`; the API has no error flag, so `is_error` is carried by the text alone.
 * Reasoning is sent back only under `reasoning_field` (most servers reject or ignore it).
 * Pictures go as `image_url` parts with a `data:` URL; a tool message takes text only, so the
 * pictures of a run of tool results follow it in one user message.
 */
export function to_openai_messages(
  messages: readonly Message[],
  reasoning_field?: OpenAiReasoningField,
): OpenAiMessage[] {
  const result: OpenAiMessage[] = [];
  let tool_images: OpenAiUserPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && tool_images.length > 0) {
      result.push({ role: 'user', content: tool_images });
      tool_images = [];
    }
    const wire = to_openai_message(message, reasoning_field);
    if (wire !== undefined) result.push(wire);
    if (message.role === 'tool' && has_images(message.content)) {
      tool_images = tool_images.concat(tool_result_images(message));
    }
  }
  if (tool_images.length > 0) result.push({ role: 'user', content: tool_images });
  return result;
}

/**
 * One message in the wire shape `to_openai_messages` gives it, or `undefined` for a role the API
 * does not know. A tool result's pictures are left out here (see `to_openai_messages`).
 */
export function to_openai_message(
  message: Message,
  reasoning_field: OpenAiReasoningField | undefined,
): OpenAiMessage | undefined {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return typeof message.content === 'string'
        ? { role: 'user', content: message.content }
        : { role: 'user', content: to_user_parts(message.content) };
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
      return {
        role: 'tool',
        tool_call_id: message.tool_call_id,
        content: content_text(message.content),
      };
    default:
      return undefined;
  }
}

function to_user_parts(content: readonly ContentPart[]): OpenAiUserPart[] {
  const parts: OpenAiUserPart[] = [];
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'text', text: part.text });
    else if (part.type === 'image') parts.push(image_part(part));
  }
  return parts;
}

function tool_result_images(message: Extract<Message, { role: 'tool' }>): OpenAiUserPart[] {
  const images = content_images(message.content);
  const label = `The pictures the tool ${message.name ?? message.tool_call_id} returned:`;
  return [{ type: 'text', text: label }, ...images.map(image_part)];
}

/** A picture as an `image_url` part; one whose bytes are not at hand goes as its name. */
function image_part(part: ImagePart): OpenAiUserPart {
  if (part.data === undefined) return { type: 'text', text: content_text([part]) };
  return { type: 'image_url', image_url: { url: `data:${part.media_type};base64,${part.data}` } };
}

import { content_images, content_text, type Message, type MessageContent } from '@lich/core';
import { parse_tool_arguments } from '@lich/providers';
import type { OllamaMessage } from './ollama_api.js';

/**
 * Maps Lich messages to `/api/chat` messages.
 *
 * Contract: never throws; the input is not mutated. Assistant tool calls carry their arguments
 * as objects (arguments that are not a JSON object are sent as `{}`), and the reasoning goes back
 * as `thinking`. A tool result carries `tool_name`: its own `name`, else the name of the call it
 * answers. Ollama has no error flag on results, so `is_error` is carried by the text alone.
 * Pictures go as base64 in a message's `images`; a tool result's follow the run of tool results
 * in one user message.
 */
export function to_ollama_messages(messages: readonly Message[]): OllamaMessage[] {
  const names = new Map<string, string>();
  const result: OllamaMessage[] = [];
  let tool_images: OllamaMessage | undefined;
  for (const message of messages) {
    if (message.role !== 'tool' && tool_images !== undefined) {
      result.push(tool_images);
      tool_images = undefined;
    }
    switch (message.role) {
      case 'system':
        result.push({ role: 'system', content: message.content });
        break;
      case 'user':
        result.push(
          with_pictures({ role: 'user', content: text_of(message.content) }, message.content),
        );
        break;
      case 'assistant': {
        const wire: OllamaMessage = { role: 'assistant', content: message.content };
        if (message.reasoning) wire.thinking = message.reasoning;
        const calls = message.tool_calls ?? [];
        if (calls.length > 0) {
          wire.tool_calls = calls.map((call) => {
            names.set(call.id, call.name);
            return {
              function: { name: call.name, arguments: parse_tool_arguments(call.arguments) },
            };
          });
        }
        result.push(wire);
        break;
      }
      case 'tool': {
        const wire: OllamaMessage = { role: 'tool', content: text_of(message.content) };
        const name = message.name ?? names.get(message.tool_call_id);
        if (name) wire.tool_name = name;
        result.push(wire);
        if (content_images(message.content).some((image) => image.data !== undefined)) {
          tool_images ??= { role: 'user', content: 'The pictures the tools returned.' };
          with_pictures(tool_images, message.content);
        }
        break;
      }
    }
  }
  if (tool_images !== undefined) result.push(tool_images);
  return result;
}

/** The text of content; pictures with bytes go in `images`, so only those without stand as names. */
function text_of(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content_text(content.filter((part) => part.type !== 'image' || part.data === undefined));
}

/** Adds the pictures of `content` (those with bytes) to `wire.images`; returns `wire`. */
function with_pictures(wire: OllamaMessage, content: MessageContent): OllamaMessage {
  for (const image of content_images(content)) {
    if (image.data === undefined) continue;
    wire.images ??= [];
    wire.images.push(image.data);
  }
  return wire;
}

import type { Message } from '@lich/core';
import { parse_tool_arguments } from '@lich/providers';
import type { OllamaMessage } from './ollama_api.js';

/**
 * Maps Lich messages to `/api/chat` messages.
 *
 * Contract: never throws; the input is not mutated. Assistant tool calls carry their arguments
 * as objects (arguments that are not a JSON object are sent as `{}`), and the reasoning goes back
 * as `thinking`. A tool result carries `tool_name`: its own `name`, else the name of the call it
 * answers. Ollama has no error flag on results, so `is_error` is carried by the text alone.
 */
export function to_ollama_messages(messages: readonly Message[]): OllamaMessage[] {
  const names = new Map<string, string>();
  const result: OllamaMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'user':
        result.push({ role: message.role, content: message.content });
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
        const wire: OllamaMessage = { role: 'tool', content: message.content };
        const name = message.name ?? names.get(message.tool_call_id);
        if (name) wire.tool_name = name;
        result.push(wire);
        break;
      }
    }
  }
  return result;
}

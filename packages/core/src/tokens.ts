/**
 * A coarse token estimate: characters / 4. Budget decisions need no exact counts, and a fixed
 * ratio spares every provider a tokenizer dependency (at the cost of roughly 10–20 % error).
 */
import { image_tokens } from './content.js';
import type { Message, MessageContent, ToolDefinition } from './types.js';

/** Characters per estimated token. */
export const CHARS_PER_TOKEN = 4;

/**
 * The characters of one message that reach the model: its content, its reasoning, the name and
 * arguments of each tool call, and a tool result's tool name.
 *
 * Contract: never throws on a well-typed message; O(number of tool calls).
 */
export function count_message_chars(message: Message): number {
  let chars = content_chars(message.content);
  if (message.role === 'assistant') {
    if (message.reasoning !== undefined) {
      chars += message.reasoning.length;
    } else if (message.reasoning_parts !== undefined) {
      for (const part of message.reasoning_parts) chars += part.text.length;
    }
    if (message.tool_calls !== undefined) {
      for (const call of message.tool_calls) chars += call.name.length + call.arguments.length;
    }
  } else if (message.role === 'tool' && message.name !== undefined) {
    chars += message.name.length;
  }
  return chars;
}

/**
 * The characters `content` stands for: its text, and for each picture the characters of the
 * tokens providers bill for it (see `image_tokens`), so a picture weighs in the budget as it will
 * on the bill.
 */
function content_chars(content: MessageContent | undefined): number {
  if (typeof content === 'string') return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const part of content) {
    if (part.type === 'text') chars += part.text.length;
    else if (part.type === 'image') chars += image_tokens(part) * CHARS_PER_TOKEN;
  }
  return chars;
}

/**
 * Estimates the tokens of `messages` as their characters (see `count_message_chars`) / 4,
 * rounded up.
 *
 * Contract: never throws on well-typed messages; scans every message once.
 */
export function estimate_tokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += count_message_chars(message);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * Estimates the tokens the tool definitions take in each request (their JSON text / 4).
 *
 * Contract: never throws; definitions JSON cannot represent count as nothing.
 */
export function estimate_definition_tokens(definitions: readonly ToolDefinition[]): number {
  let chars = 0;
  for (const definition of definitions) {
    try {
      chars += JSON.stringify(definition)?.length ?? 0;
    } catch {
      // a schema with a cycle or a BigInt never reaches a provider intact either
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * A running token estimate of a growing history, so a per-turn check costs O(1) instead of a
 * rescan: `add` each appended message, `reset` after the history was rewritten (compression).
 *
 * Contract: `tokens` always equals `estimate_tokens` of the messages given since the last reset;
 * no method throws on well-typed messages.
 */
export class TokenCounter {
  #chars = 0;

  /** Starts from `messages` (scanned once). */
  constructor(messages: readonly Message[] = []) {
    this.reset(messages);
  }

  /** Counts one more message. O(1) per message apart from its tool calls. */
  add(message: Message): void {
    this.#chars += count_message_chars(message);
  }

  /** Forgets everything and counts `messages` afresh. */
  reset(messages: readonly Message[]): void {
    let chars = 0;
    for (const message of messages) chars += count_message_chars(message);
    this.#chars = chars;
  }

  /** The characters counted so far. */
  get chars(): number {
    return this.#chars;
  }

  /** The estimated tokens counted so far: characters / 4, rounded up. */
  get tokens(): number {
    return Math.ceil(this.#chars / CHARS_PER_TOKEN);
  }
}

/**
 * A session's conversation as transcript blocks, for a resumed session: what the person said,
 * the answers, reasoning and each tool call with its result.
 */
import { content_text, type Message } from '@lich/core';
import type { Block, ToolView } from './state_types.js';

type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

/** A block before it gets its id. */
export type NewBlock = Unnumbered<Block>;

function parse_args(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The blocks of `messages`, in order. System messages are left out; a tool call whose result is
 * missing (a run cut short) is shown interrupted.
 */
export function history_blocks(messages: readonly Message[]): NewBlock[] {
  const results = new Map<string, { content: string; is_error: boolean }>();
  for (const message of messages) {
    if (message.role === 'tool') {
      results.set(message.tool_call_id, {
        content: content_text(message.content),
        is_error: message.is_error === true,
      });
    }
  }
  const blocks: NewBlock[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      blocks.push({ kind: 'user', text: content_text(message.content), via: 'prompt' });
    } else if (message.role === 'assistant') {
      if (message.reasoning) {
        blocks.push({ kind: 'reasoning', text: message.reasoning, expanded: false });
      }
      if (message.content.trim() !== '') blocks.push({ kind: 'answer', text: message.content });
      for (const call of message.tool_calls ?? []) {
        const result = results.get(call.id);
        const tool: ToolView = {
          tool_call_id: call.id,
          name: call.name,
          args: parse_args(call.arguments),
          started_at: 0,
          ...(result === undefined
            ? { interrupted: true }
            : { ok: !result.is_error, output: result.content }),
        };
        blocks.push({ kind: 'tool', tool });
      }
    }
  }
  return blocks;
}

import { content_text, type Message, type MessageContent, type ToolDefinition } from '@lich/core';
import { parse_tool_arguments } from '@lich/providers';
import type { BedrockBlock, BedrockMessage, BedrockRequest } from './bedrock_api.js';

/** A conversation in Converse's shape: the system prompt apart, then alternating turns. */
export interface BedrockPrompt {
  system: { text: string }[] | undefined;
  messages: BedrockMessage[];
}

/**
 * Maps Lich messages to Converse messages.
 *
 * Contract: never throws; the input is not mutated. System messages go to `system`. An assistant
 * turn sends back its reasoning (`reasoning_parts` with their signatures, redacted ones as they
 * came), its text and one `toolUse` per call; tool results become `toolResult` blocks (`status:
 * 'error'` when `is_error`) in a user turn, consecutive ones together; consecutive user turns are
 * merged, since Converse wants roles to alternate.
 */
export function to_bedrock_messages(messages: readonly Message[]): BedrockPrompt {
  const system: { text: string }[] = [];
  const out: BedrockMessage[] = [];
  const push = (role: BedrockMessage['role'], content: BedrockBlock[]) => {
    const last = out.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        system.push({ text: message.content });
        break;
      case 'user':
        push('user', content_blocks(message.content));
        break;
      case 'assistant': {
        const content: BedrockBlock[] = [];
        for (const part of message.reasoning_parts ?? []) {
          if (part.redacted !== undefined) {
            content.push({ reasoningContent: { redactedContent: part.redacted } });
          } else {
            const reasoning: { text: string; signature?: string } = { text: part.text };
            if (part.signature) reasoning.signature = part.signature;
            content.push({ reasoningContent: { reasoningText: reasoning } });
          }
        }
        if (message.content !== '') content.push({ text: message.content });
        for (const call of message.tool_calls ?? []) {
          content.push({
            toolUse: {
              toolUseId: call.id,
              name: call.name,
              input: parse_tool_arguments(call.arguments),
            },
          });
        }
        if (content.length === 0) content.push({ text: ' ' });
        push('assistant', content);
        break;
      }
      case 'tool':
        push('user', [
          {
            toolResult: {
              toolUseId: message.tool_call_id,
              content: content_blocks(message.content) as { text: string }[],
              ...(message.is_error ? { status: 'error' as const } : {}),
            },
          },
        ]);
        break;
    }
  }
  return { system: system.length > 0 ? system : undefined, messages: out };
}

/** Text and pictures as blocks: a picture as an `image` block (format from its media type). */
function content_blocks(content: MessageContent): BedrockBlock[] {
  if (typeof content === 'string') return [{ text: content }];
  const blocks: BedrockBlock[] = [];
  for (const part of content) {
    if (part.type === 'text') blocks.push({ text: part.text });
    else if (part.type === 'image' && part.data !== undefined) {
      const format = part.media_type.replace(/^image\//, '');
      blocks.push({ image: { format, source: { bytes: part.data } } });
    } else if (part.type === 'image') blocks.push({ text: content_text([part]) });
  }
  return blocks.length > 0 ? blocks : [{ text: ' ' }];
}

/** Lich tool definitions as Converse tool specs. */
export function to_bedrock_tools(
  tools: readonly ToolDefinition[],
): NonNullable<BedrockRequest['toolConfig']> {
  return {
    tools: tools.map((tool) => ({
      toolSpec: {
        name: tool.name,
        description: tool.description,
        inputSchema: { json: tool.parameters },
      },
    })),
  };
}

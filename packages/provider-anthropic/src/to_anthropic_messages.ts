import {
  type AssistantMessage,
  type ContentPart,
  content_text,
  type Message,
  type MessageContent,
  type ToolDefinition,
} from '@lich/core';
import { parse_tool_arguments } from '@lich/providers';
import type {
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicRequestBlock,
  AnthropicTool,
} from './anthropic_api.js';

/** The `system` and `messages` of a request. */
export interface AnthropicPrompt {
  system?: string;
  messages: AnthropicMessage[];
}

/**
 * Maps Lich messages to the Messages API.
 *
 * Contract: never throws; the input is not mutated.
 * - system messages become the top-level `system` (several are joined by a blank line);
 * - an assistant turn replays its `reasoning_parts` first: signed thinking as `thinking`,
 *   redacted as `redacted_thinking` (unsigned reasoning from another provider is dropped, the API
 *   would refuse it), then its text, then one `tool_use` block per call with parsed `input`
 *   (`{}` when the arguments are not a JSON object);
 * - tool results become `tool_result` blocks (`is_error` kept) in a user message; a result with
 *   pictures carries them as `image` blocks in its content, as the API allows;
 * - pictures of a user message become base64 `image` blocks;
 * - consecutive messages of one role are merged into one (parallel tool results, or a user
 *   message after tool results), since the API wants the roles to alternate;
 * - empty text blocks are left out (the API refuses them), and so are messages left empty.
 */
export function to_anthropic_messages(messages: readonly Message[]): AnthropicPrompt {
  const system: string[] = [];
  const result: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (message.content !== '') system.push(message.content);
      continue;
    }
    let role: AnthropicMessage['role'];
    let blocks: AnthropicRequestBlock[];
    if (message.role === 'assistant') {
      role = 'assistant';
      blocks = assistant_blocks(message);
    } else if (message.role === 'tool') {
      role = 'user';
      const block: Extract<AnthropicRequestBlock, { type: 'tool_result' }> = {
        type: 'tool_result',
        tool_use_id: message.tool_call_id,
        content:
          typeof message.content === 'string'
            ? message.content
            : (content_blocks(message.content) as Exclude<typeof block.content, string>),
      };
      if (message.is_error) block.is_error = true;
      blocks = [block];
    } else {
      role = 'user';
      blocks = content_blocks(message.content);
    }
    if (blocks.length === 0) continue;
    const last = result[result.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else result.push({ role, content: blocks });
  }
  const prompt: AnthropicPrompt = { messages: result };
  if (system.length > 0) prompt.system = system.join('\n\n');
  return prompt;
}

/** Text and pictures as blocks: text as `text`, a picture as a base64 `image` block. */
function content_blocks(content: MessageContent): AnthropicRequestBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: AnthropicRequestBlock[] = [];
  for (const part of content) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image') blocks.push(image_block(part));
  }
  return blocks;
}

/** A picture as an `image` block; one whose bytes are not at hand goes as its name. */
function image_block(part: ContentPart & { type: 'image' }): AnthropicRequestBlock {
  if (part.data === undefined) return { type: 'text', text: content_text([part]) };
  const block: AnthropicImageBlock = {
    type: 'image',
    source: { type: 'base64', media_type: part.media_type, data: part.data },
  };
  return block;
}

function assistant_blocks(message: AssistantMessage): AnthropicRequestBlock[] {
  const blocks: AnthropicRequestBlock[] = [];
  for (const part of message.reasoning_parts ?? []) {
    if (part.redacted) blocks.push({ type: 'redacted_thinking', data: part.redacted });
    else if (part.signature) {
      blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
    }
  }
  if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: parse_tool_arguments(call.arguments),
    });
  }
  return blocks;
}

/** Maps Lich tool definitions to the `tools` array. Never throws. */
export function to_anthropic_tools(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }));
}

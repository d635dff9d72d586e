import type { Message } from '@lich/core';
import { content_text, image_placeholder, type MessageContent, safe_json_parse } from '@lich/core';
import type { SessionUpdate } from './acp_sdk.js';
import { plan_entries } from './plan.js';
import { describe_tool_call, is_plan_tool } from './tool_display.js';
import { TOOL_OUTPUT_SHOWN_CHARS, text_block } from './update_mapping.js';

/**
 * A user message as `user_message_chunk`s: its text (a picture whose bytes are not at hand stands
 * as its placeholder), then each picture with its bytes as an `image` block.
 */
function user_chunks(content: MessageContent): SessionUpdate[] {
  if (typeof content === 'string' || !content.some((part) => part.type === 'image' && part.data)) {
    return [{ sessionUpdate: 'user_message_chunk', content: text_block(content_text(content)) }];
  }
  const texts: string[] = [];
  const pictures: SessionUpdate[] = [];
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'image' && part.data !== undefined) {
      pictures.push({
        sessionUpdate: 'user_message_chunk',
        content: { type: 'image', data: part.data, mimeType: part.media_type },
      });
    } else if (part.type === 'image') texts.push(image_placeholder(part));
  }
  const text = texts.join('\n\n');
  return [
    ...(text === ''
      ? []
      : [{ sessionUpdate: 'user_message_chunk' as const, content: text_block(text) }]),
    ...pictures,
  ];
}

/**
 * The `session/update`s that replay a conversation for `session/load`: user messages as
 * `user_message_chunk` (their pictures as `image` blocks), reasoning as `agent_thought_chunk`, answers as `agent_message_chunk`, each
 * tool call as a `tool_call` and its result as a `tool_call_update` (`completed` or `failed`).
 * The system prompt is not replayed.
 *
 * Contract: pure, never throws; a tool call whose result is missing (a run cut short) is marked
 * `failed`, so the editor shows no call as still running.
 */
export function replay_history(messages: readonly Message[], work_dir: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const open = new Map<string, string>();
  const close_open = () => {
    for (const id of open.keys()) {
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' });
    }
    open.clear();
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        close_open();
        updates.push(...user_chunks(message.content));
        break;
      case 'assistant': {
        close_open();
        if (message.reasoning) {
          updates.push({
            sessionUpdate: 'agent_thought_chunk',
            content: text_block(message.reasoning),
          });
        }
        if (message.content !== '') {
          updates.push({
            sessionUpdate: 'agent_message_chunk',
            content: text_block(message.content),
          });
        }
        for (const call of message.tool_calls ?? []) {
          const parsed = safe_json_parse(call.arguments);
          const args = parsed.ok ? parsed.value : call.arguments;
          const display = describe_tool_call(call.name, args, work_dir);
          updates.push({
            sessionUpdate: 'tool_call',
            toolCallId: call.id,
            title: display.title,
            kind: display.kind,
            status: 'in_progress',
            locations: display.locations,
            content: display.content,
            rawInput: args,
          });
          if (is_plan_tool(call.name)) {
            const entries = plan_entries(args);
            if (entries !== undefined) updates.push({ sessionUpdate: 'plan', entries });
          }
          open.set(call.id, call.name);
        }
        break;
      }
      case 'tool': {
        const name = open.get(message.tool_call_id);
        open.delete(message.tool_call_id);
        const failed = message.is_error === true;
        const output = content_text(message.content);
        const text =
          output.length > TOOL_OUTPUT_SHOWN_CHARS
            ? `${output.slice(0, TOOL_OUTPUT_SHOWN_CHARS)}\n…`
            : output;
        const keep_diff = !failed && (name === 'edit_file' || name === 'write_file');
        updates.push({
          sessionUpdate: 'tool_call_update',
          toolCallId: message.tool_call_id,
          status: failed ? 'failed' : 'completed',
          ...(keep_diff || text === ''
            ? {}
            : { content: [{ type: 'content', content: text_block(text) }] }),
        });
        break;
      }
    }
  }
  close_open();
  return updates;
}

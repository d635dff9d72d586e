import type { FinishReason } from '@lich/core';
import { type RenderContext, type RenderedResponse, resolve_reply } from './render.js';
import type { FakeReply } from './script.js';
import { arguments_object, split_text } from './split.js';

const DONE_REASON: Record<FinishReason, string> = {
  stop: 'stop',
  tool_calls: 'stop',
  length: 'length',
  content_filter: 'stop',
  error: 'stop',
  other: 'stop',
};

const CREATED_AT = '2025-06-01T12:00:00.000000Z';

/**
 * Renders a reply as Ollama `/api/chat`: NDJSON lines with `message.thinking`,
 * `message.content` and whole `message.tool_calls` (Ollama sends arguments as an object, never in
 * pieces), ending in a `done: true` line with `done_reason`, `prompt_eval_count` and
 * `eval_count`; one such object when not streaming.
 */
export function render_ollama(reply: FakeReply, context: RenderContext): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'call_fake');
  const done_reason = reply.wire_finish_reason ?? DONE_REASON[resolved.finish_reason];
  const headers = { ...reply.headers };
  const model = resolved.model;
  // Recent Ollama versions send the call's position, and an id only some of the time: the id is
  // sent only when the script names one, so providers are tested on making their own.
  const tool_calls = resolved.tool_calls.map((call, index) => ({
    ...(reply.tool_calls?.[index]?.id === undefined ? {} : { id: call.id }),
    function: { index, name: call.name, arguments: arguments_object(call.arguments) },
  }));
  const final_fields = {
    done: true,
    done_reason,
    total_duration: 1_234_567_890,
    load_duration: 12_345_678,
    prompt_eval_count: resolved.usage.input_tokens,
    prompt_eval_duration: 123_456_789,
    eval_count: resolved.usage.output_tokens,
    eval_duration: 987_654_321,
  };

  if (!context.request.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: resolved.text };
    if (resolved.reasoning !== '') message.thinking = resolved.reasoning;
    if (tool_calls.length > 0) message.tool_calls = tool_calls;
    const body = { model, created_at: CREATED_AT, message, ...final_fields };
    return {
      status: 200,
      content_type: 'application/json; charset=utf-8',
      headers,
      parts: [JSON.stringify(body)],
    };
  }

  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const parts: string[] = [];
  for (const thinking of split_text(resolved.reasoning, resolved.chunk_chars)) {
    parts.push(
      line({
        model,
        created_at: CREATED_AT,
        message: { role: 'assistant', content: '', thinking },
        done: false,
      }),
    );
  }
  for (const content of split_text(resolved.text, resolved.chunk_chars)) {
    parts.push(
      line({ model, created_at: CREATED_AT, message: { role: 'assistant', content }, done: false }),
    );
  }
  for (const call of tool_calls) {
    parts.push(
      line({
        model,
        created_at: CREATED_AT,
        message: { role: 'assistant', content: '', tool_calls: [call] },
        done: false,
      }),
    );
  }
  if (reply.error_event) {
    parts.push(line({ error: reply.error_event.message }));
    return { status: 200, content_type: 'application/x-ndjson', headers, parts };
  }
  if (!reply.unterminated) {
    parts.push(
      line({
        model,
        created_at: CREATED_AT,
        message: { role: 'assistant', content: '' },
        ...final_fields,
      }),
    );
  }
  return { status: 200, content_type: 'application/x-ndjson', headers, parts };
}

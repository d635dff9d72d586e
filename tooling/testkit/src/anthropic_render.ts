import type { FinishReason } from '@lich/core';
import { type RenderContext, type RenderedResponse, resolve_reply, sse_event } from './render.js';
import type { FakeReply } from './script.js';
import { arguments_object, arguments_text, split_into, split_text } from './split.js';

const STOP: Record<FinishReason, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
  error: 'end_turn',
  other: 'end_turn',
};

/** The signature sent with a thinking block when the script gives none. */
export const DEFAULT_THINKING_SIGNATURE =
  'EqQBCkYIBRgCKkBmYWtlLXNpZ25hdHVyZS1mb3ItbGljaC10ZXN0cw==';

/**
 * Renders a reply as Anthropic Messages: `message_start`, `ping`, one content block per thinking
 * / text / tool use with its deltas, `message_delta` with the stop reason and output usage, and
 * `message_stop` when streaming; one `message` object otherwise.
 */
export function render_anthropic(reply: FakeReply, context: RenderContext): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'toolu_fake');
  const id = `msg_fake${String(context.sequence).padStart(4, '0')}`;
  const stop_reason = reply.wire_finish_reason ?? STOP[resolved.finish_reason];
  const headers = { 'request-id': `req_anthropic_${context.sequence}`, ...reply.headers };
  const signature = reply.reasoning_signature ?? DEFAULT_THINKING_SIGNATURE;
  const usage = resolved.usage;
  const input_usage = {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_write_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_tokens ?? 0,
    cache_creation: {
      ephemeral_5m_input_tokens:
        (usage.cache_write_tokens ?? 0) - (usage.cache_write_1h_tokens ?? 0),
      ephemeral_1h_input_tokens: usage.cache_write_1h_tokens ?? 0,
    },
  };

  if (!context.request.stream) {
    const content: Array<Record<string, unknown>> = [];
    if (resolved.reasoning !== '')
      content.push({ type: 'thinking', thinking: resolved.reasoning, signature });
    if (reply.redacted_reasoning !== undefined)
      content.push({ type: 'redacted_thinking', data: reply.redacted_reasoning });
    if (resolved.text !== '') content.push({ type: 'text', text: resolved.text });
    for (const call of resolved.tool_calls) {
      content.push({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: arguments_object(call.arguments),
      });
    }
    const body = {
      id,
      type: 'message',
      role: 'assistant',
      model: resolved.model,
      content,
      stop_reason,
      stop_sequence: null,
      usage: { ...input_usage, output_tokens: usage.output_tokens, service_tier: 'standard' },
    };
    return {
      status: 200,
      content_type: 'application/json',
      headers,
      parts: [JSON.stringify(body)],
    };
  }

  const parts: string[] = [
    sse_event(
      {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: resolved.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...input_usage, output_tokens: 1, service_tier: 'standard' },
        },
      },
      'message_start',
    ),
    sse_event({ type: 'ping' }, 'ping'),
  ];
  let index = 0;
  const block = (
    content_block: Record<string, unknown>,
    deltas: Array<Record<string, unknown>>,
  ) => {
    parts.push(
      sse_event({ type: 'content_block_start', index, content_block }, 'content_block_start'),
    );
    for (const delta of deltas) {
      parts.push(sse_event({ type: 'content_block_delta', index, delta }, 'content_block_delta'));
    }
    parts.push(sse_event({ type: 'content_block_stop', index }, 'content_block_stop'));
    index += 1;
  };
  if (resolved.reasoning !== '') {
    const deltas: Array<Record<string, unknown>> = split_text(
      resolved.reasoning,
      resolved.chunk_chars,
    ).map((thinking) => ({ type: 'thinking_delta', thinking }));
    deltas.push({ type: 'signature_delta', signature });
    block({ type: 'thinking', thinking: '', signature: '' }, deltas);
  }
  if (reply.redacted_reasoning !== undefined) {
    block({ type: 'redacted_thinking', data: reply.redacted_reasoning }, []);
  }
  if (resolved.text !== '') {
    block(
      { type: 'text', text: '' },
      split_text(resolved.text, resolved.chunk_chars).map((text) => ({ type: 'text_delta', text })),
    );
  }
  for (const call of resolved.tool_calls) {
    const pieces = split_into(arguments_text(call.arguments), resolved.argument_pieces);
    block({ type: 'tool_use', id: call.id, name: call.name, input: {} }, [
      { type: 'input_json_delta', partial_json: '' },
      ...pieces.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    ]);
  }
  if (reply.error_event) {
    const error = {
      type: 'error',
      error: {
        type: reply.error_event.type ?? 'overloaded_error',
        message: reply.error_event.message,
      },
    };
    parts.push(sse_event(error, 'error'));
    return { status: 200, content_type: 'text/event-stream; charset=utf-8', headers, parts };
  }
  if (!reply.unterminated) {
    parts.push(
      sse_event(
        {
          type: 'message_delta',
          delta: { stop_reason, stop_sequence: null },
          usage: { output_tokens: usage.output_tokens },
        },
        'message_delta',
      ),
    );
    parts.push(sse_event({ type: 'message_stop' }, 'message_stop'));
  }
  return { status: 200, content_type: 'text/event-stream; charset=utf-8', headers, parts };
}

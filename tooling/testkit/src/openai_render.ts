import type { FinishReason } from '@lich/core';
import {
  type RenderContext,
  type RenderedResponse,
  type ResolvedReply,
  resolve_reply,
  sse_event,
} from './render.js';
import type { FakeReply } from './script.js';
import { arguments_text, split_into, split_text } from './split.js';

const FINISH: Record<FinishReason, string> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  length: 'length',
  content_filter: 'content_filter',
  error: 'stop',
  other: 'stop',
};

function openai_usage(resolved: ResolvedReply): Record<string, unknown> {
  const usage = resolved.usage;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cache_read_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function include_usage(context: RenderContext): boolean {
  const body = context.request.body as { stream_options?: { include_usage?: unknown } } | undefined;
  return body?.stream_options?.include_usage === true;
}

/**
 * Renders a reply as OpenAI chat completions: `chat.completion.chunk` SSE events ending in
 * `data: [DONE]` when streaming, one `chat.completion` object otherwise.
 */
export function render_openai(reply: FakeReply, context: RenderContext): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'call_fake');
  const id = `chatcmpl-fake${String(context.sequence).padStart(4, '0')}`;
  const created = 1_750_000_000 + context.sequence;
  const finish = reply.wire_finish_reason ?? FINISH[resolved.finish_reason];
  const headers = { 'x-request-id': `req_openai_${context.sequence}`, ...reply.headers };

  if (!context.request.stream) {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: resolved.text === '' && resolved.tool_calls.length > 0 ? null : resolved.text,
      refusal: null,
      annotations: [],
    };
    if (resolved.reasoning !== '') message[context.reasoning_field] = resolved.reasoning;
    if (resolved.tool_calls.length > 0) {
      message.tool_calls = resolved.tool_calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: arguments_text(call.arguments) },
      }));
    }
    const body = {
      id,
      object: 'chat.completion',
      created,
      model: resolved.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: openai_usage(resolved),
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    };
    return {
      status: 200,
      content_type: 'application/json',
      headers,
      parts: [JSON.stringify(body)],
    };
  }

  const with_usage = include_usage(context);
  const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) => {
    const value: Record<string, unknown> = {
      id,
      object: 'chat.completion.chunk',
      created,
      model: resolved.model,
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    };
    if (with_usage) value.usage = null;
    return sse_event(value);
  };
  const parts: string[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of split_text(resolved.reasoning, resolved.chunk_chars)) {
    parts.push(chunk({ [context.reasoning_field]: piece }));
  }
  for (const piece of split_text(resolved.text, resolved.chunk_chars)) {
    parts.push(chunk({ content: piece }));
  }
  resolved.tool_calls.forEach((call, index) => {
    parts.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    for (const piece of split_into(arguments_text(call.arguments), resolved.argument_pieces)) {
      parts.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (reply.error_event) {
    const error = {
      error: {
        message: reply.error_event.message,
        type: reply.error_event.type ?? 'server_error',
        param: null,
        code: null,
      },
    };
    parts.push(sse_event(error));
    return { status: 200, content_type: 'text/event-stream; charset=utf-8', headers, parts };
  }
  if (!reply.unterminated) {
    parts.push(chunk({}, finish));
    if (with_usage) {
      parts.push(
        sse_event({
          id,
          object: 'chat.completion.chunk',
          created,
          model: resolved.model,
          service_tier: 'default',
          system_fingerprint: 'fp_fake',
          choices: [],
          usage: openai_usage(resolved),
        }),
      );
    }
    parts.push(sse_event('[DONE]'));
  }
  return { status: 200, content_type: 'text/event-stream; charset=utf-8', headers, parts };
}

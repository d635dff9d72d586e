import { type RenderContext, type RenderedResponse, resolve_reply, sse_event } from './render.js';
import type { FakeReply } from './script.js';
import { arguments_text, split_into, split_text } from './split.js';

/** The encrypted content sent with a reply's reasoning item. */
export const RESPONSES_FAKE_ENCRYPTED = 'gAAAAfake-encrypted-reasoning==';

/**
 * Renders a reply as the OpenAI Responses API: `response.created`, a reasoning item (its summary
 * streamed, its encrypted content in `output_item.done`), a message item with
 * `response.output_text.delta` pieces, one `function_call` item per call with its arguments in
 * pieces, then `response.completed` with the usage; one response object when not streaming. An
 * `error_event` is a `response.failed`.
 */
export function render_openai_responses(
  reply: FakeReply,
  context: RenderContext,
): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'call_fake');
  const id = `resp_fake${String(context.sequence).padStart(4, '0')}`;
  const headers = { 'x-request-id': `req_responses_${context.sequence}`, ...reply.headers };
  const usage = {
    input_tokens: resolved.usage.input_tokens,
    input_tokens_details: { cached_tokens: resolved.usage.cache_read_tokens ?? 0 },
    output_tokens: resolved.usage.output_tokens,
    output_tokens_details: { reasoning_tokens: resolved.usage.reasoning_tokens ?? 0 },
    total_tokens: resolved.usage.input_tokens + resolved.usage.output_tokens,
  };
  const output: Record<string, unknown>[] = [];
  if (resolved.reasoning !== '') {
    output.push({
      type: 'reasoning',
      id: `rs_${id}`,
      summary: [{ type: 'summary_text', text: resolved.reasoning }],
      encrypted_content: RESPONSES_FAKE_ENCRYPTED,
    });
  }
  if (resolved.text !== '') {
    output.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: resolved.text, annotations: [] }],
    });
  }
  for (const call of resolved.tool_calls) {
    output.push({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: arguments_text(call.arguments),
      status: 'completed',
    });
  }
  const status = resolved.finish_reason === 'length' ? 'incomplete' : 'completed';
  const response = {
    id,
    object: 'response',
    status,
    model: resolved.model,
    output,
    usage,
    ...(status === 'incomplete' ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
  };
  if (!context.request.stream) {
    return {
      status: 200,
      content_type: 'application/json',
      headers,
      parts: [JSON.stringify(response)],
    };
  }
  const event = (type: string, data: Record<string, unknown>) => sse_event({ type, ...data }, type);
  const parts: string[] = [
    event('response.created', { response: { id, status: 'in_progress', output: [] } }),
  ];
  output.forEach((item, output_index) => {
    const added =
      item.type === 'function_call'
        ? { ...item, arguments: '' }
        : { ...item, content: [], summary: [] };
    parts.push(event('response.output_item.added', { output_index, item: added }));
    if (item.type === 'reasoning') {
      for (const piece of split_text(resolved.reasoning, resolved.chunk_chars)) {
        parts.push(event('response.reasoning_summary_text.delta', { output_index, delta: piece }));
      }
    } else if (item.type === 'message') {
      for (const piece of split_text(resolved.text, resolved.chunk_chars)) {
        parts.push(event('response.output_text.delta', { output_index, delta: piece }));
      }
    } else {
      for (const piece of split_into(String(item.arguments), resolved.argument_pieces)) {
        parts.push(event('response.function_call_arguments.delta', { output_index, delta: piece }));
      }
    }
    parts.push(event('response.output_item.done', { output_index, item }));
  });
  if (reply.error_event) {
    parts.push(
      event('response.failed', {
        response: {
          id,
          status: 'failed',
          error: {
            code: reply.error_event.type ?? 'server_error',
            message: reply.error_event.message,
          },
        },
      }),
    );
  } else if (!reply.unterminated) {
    parts.push(
      event(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response }),
    );
  }
  return { status: 200, content_type: 'text/event-stream; charset=utf-8', headers, parts };
}

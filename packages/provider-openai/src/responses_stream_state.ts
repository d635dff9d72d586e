import type {
  AssistantMessage,
  ChatResult,
  FinishReason,
  ReasoningPart,
  ToolCall,
  Usage,
} from '@lich/core';
import { BaseStreamState, ProviderError, type SseChunk } from '@lich/providers';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesUsage } from './responses_api.js';
import { reasoning_token } from './to_responses_input.js';

/**
 * Puts a Responses API answer together: each SSE event of a stream, or a whole response object
 * (`take_response`).
 *
 * Contract:
 * - `push` hands each `response.output_text.delta` (text) and each reasoning summary or text
 *   delta (reasoning) to `on_delta` at once, in order, exactly once;
 * - the output items are taken whole from `response.output_item.done` (or the final response):
 *   function calls with their `call_id`, reasoning items kept in `reasoning_parts` with their id
 *   and encrypted content, to be sent back on the next turn;
 * - `done` turns true at `response.completed` or `response.incomplete`; `response.failed` and
 *   `error` events throw a `ProviderError` (kind `http`, or `stream` without a code); `result`
 *   throws kind `stream` when no final event came.
 */
export class ResponsesStreamState extends BaseStreamState<SseChunk> {
  private readonly items: ResponsesOutputItem[] = [];
  private response: ResponsesResponse | undefined;
  private streamed_text = '';

  /** Takes one SSE event. */
  push(chunk: SseChunk): void {
    if (chunk.data.trim() === '' || chunk.data.trim() === '[DONE]') return;
    const event = this.parse_object<{
      type?: string;
      output_index?: number;
      delta?: string;
      item?: ResponsesOutputItem;
      response?: ResponsesResponse;
      code?: string;
      message?: string;
    }>(chunk.data, 'a stream event');
    const type = chunk.event && chunk.event !== 'message' ? chunk.event : event.type;
    switch (type) {
      case 'response.output_text.delta':
        if (event.delta) {
          this.streamed_text += event.delta;
          this.emit({ kind: 'text', text: event.delta });
        }
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) this.emit({ kind: 'reasoning', text: event.delta });
        break;
      case 'response.output_item.done':
        if (event.item) this.items[event.output_index ?? this.items.length] = event.item;
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.response = event.response ?? {};
        this.done = true;
        break;
      case 'response.failed':
      case 'error': {
        const error = event.response?.error ?? { code: event.code, message: event.message };
        throw new ProviderError({
          kind: error?.code ? 'http' : 'stream',
          ...this.context,
          code: error?.code ?? undefined,
          provider_message: error?.message ?? 'the response failed',
          delivered: this.delivered,
        });
      }
    }
  }

  /** Takes a whole response object (a non-streaming answer). */
  take_response(response: ResponsesResponse): void {
    if (response.error) {
      throw new ProviderError({
        kind: 'http',
        ...this.context,
        code: response.error.code ?? undefined,
        provider_message: response.error.message ?? undefined,
      });
    }
    this.response = response;
    this.done = true;
  }

  /** The finished turn. */
  result(): ChatResult {
    const response = this.response;
    if (response === undefined)
      throw this.error('stream', 'the stream ended before response.completed');
    const items = this.items.length > 0 ? this.items : (response.output ?? []);
    let text = '';
    const tool_calls: ToolCall[] = [];
    const parts: ReasoningPart[] = [];
    for (const item of items) {
      if (item === undefined) continue;
      if (item.type === 'message') {
        for (const piece of item.content ?? [])
          if (piece.type === 'output_text') text += piece.text ?? '';
      } else if (item.type === 'function_call') {
        const name = item.name?.trim() ?? '';
        if (name === '') throw this.error('parse', 'a function call has no name');
        tool_calls.push({
          id: item.call_id || item.id || `call_${crypto.randomUUID()}`,
          name,
          arguments: item.arguments?.trim() || '{}',
        });
      } else if (item.type === 'reasoning' && item.id) {
        const summary = (item.summary ?? []).map((piece) => piece.text ?? '').join('\n\n');
        parts.push({
          text: summary,
          signature: reasoning_token(item.id, item.encrypted_content ?? undefined),
        });
      }
    }
    if (text === '' && this.streamed_text !== '') text = this.streamed_text;
    const message: AssistantMessage = { role: 'assistant', content: text };
    if (tool_calls.length > 0) message.tool_calls = tool_calls;
    const reasoning = parts
      .map((part) => part.text)
      .filter((piece) => piece !== '')
      .join('\n\n');
    if (reasoning !== '') message.reasoning = reasoning;
    if (parts.length > 0) message.reasoning_parts = parts;
    const incomplete =
      response.status === 'incomplete' ? response.incomplete_details?.reason : undefined;
    const finish: FinishReason =
      incomplete === 'max_output_tokens'
        ? 'length'
        : incomplete === 'content_filter'
          ? 'content_filter'
          : tool_calls.length > 0
            ? 'tool_calls'
            : 'stop';
    const result: ChatResult = {
      message,
      finish_reason: finish,
      provider: this.context.provider,
      model: response.model || this.context.model,
    };
    const usage = map_responses_usage(response.usage);
    if (usage) result.usage = usage;
    return result;
  }
}

/** Responses token counts in Lich's terms. Never throws. */
export function map_responses_usage(usage: ResponsesUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  const result: Usage = {
    input_tokens: count(usage.input_tokens),
    output_tokens: count(usage.output_tokens),
  };
  const cached = count(usage.input_tokens_details?.cached_tokens);
  if (cached > 0) result.cache_read_tokens = cached;
  const reasoning = count(usage.output_tokens_details?.reasoning_tokens);
  if (reasoning > 0) result.reasoning_tokens = reasoning;
  return result;
}

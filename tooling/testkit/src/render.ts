import type { FinishReason, Usage } from '@lich/core';
import type { FakeReply, RecordedRequest } from './script.js';
import { arguments_text, estimate_tokens } from './split.js';

/** A response ready to write: each part is written separately (one SSE event or NDJSON line). */
export interface RenderedResponse {
  status: number;
  content_type: string;
  headers: Record<string, string>;
  /** Text, or bytes for a binary framing (Bedrock's event stream). */
  parts: Array<string | Uint8Array>;
}

/** What a renderer gets besides the reply. */
export interface RenderContext {
  request: RecordedRequest;
  /** 1-based number of the answer, used in generated ids. */
  sequence: number;
  /** OpenAI-compatible servers name the reasoning delta field differently. */
  reasoning_field: 'reasoning_content' | 'reasoning';
  /**
   * What the server's prompt cache billed, in the format's terms: the defaults of the reply's
   * usage (a scripted `usage` still wins).
   */
  billed?: Partial<Usage>;
}

/** A reply with its defaults filled in. */
export interface ResolvedReply {
  text: string;
  reasoning: string;
  tool_calls: Array<{ id: string; name: string; arguments: string | Record<string, unknown> }>;
  usage: Usage;
  finish_reason: FinishReason;
  chunk_chars: number;
  argument_pieces: number;
  model: string;
}

/** The model the request named, or a default. */
export function request_model(request: RecordedRequest): string {
  const body = request.body;
  if (typeof body === 'object' && body !== null && 'model' in body) {
    const model = (body as { model: unknown }).model;
    if (typeof model === 'string' && model !== '') return model;
  }
  return 'fake-model';
}

/** Fills in ids, usage and the finish reason of a scripted reply. */
export function resolve_reply(
  reply: FakeReply,
  context: RenderContext,
  id_prefix: string,
): ResolvedReply {
  const text = reply.text ?? '';
  const reasoning = reply.reasoning ?? '';
  const tool_calls = (reply.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `${id_prefix}${String(context.sequence).padStart(4, '0')}_${index}`,
    name: call.name,
    arguments: call.arguments,
  }));
  const produced =
    text +
    reasoning +
    tool_calls.map((call) => call.name + arguments_text(call.arguments)).join('');
  const scripted = { ...context.billed, ...reply.usage };
  const usage: Usage = {
    input_tokens: scripted.input_tokens ?? estimate_tokens(context.request.raw_body),
    output_tokens: reply.usage?.output_tokens ?? estimate_tokens(produced),
  };
  if (scripted.cache_read_tokens !== undefined)
    usage.cache_read_tokens = scripted.cache_read_tokens;
  if (scripted.cache_write_tokens !== undefined)
    usage.cache_write_tokens = scripted.cache_write_tokens;
  if (scripted.cache_write_1h_tokens !== undefined)
    usage.cache_write_1h_tokens = scripted.cache_write_1h_tokens;
  if (reply.usage?.reasoning_tokens !== undefined)
    usage.reasoning_tokens = reply.usage.reasoning_tokens;
  return {
    text,
    reasoning,
    tool_calls,
    usage,
    finish_reason: reply.finish_reason ?? (tool_calls.length > 0 ? 'tool_calls' : 'stop'),
    chunk_chars: reply.chunk_chars ?? 8,
    argument_pieces: reply.argument_pieces ?? 3,
    model: request_model(context.request),
  };
}

/** One SSE event as written on the wire. */
export function sse_event(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return event === undefined ? `data: ${payload}\n\n` : `event: ${event}\ndata: ${payload}\n\n`;
}

import type { FinishReason } from '@lich/core';
import { type RenderContext, type RenderedResponse, resolve_reply, sse_event } from './render.js';
import type { FakeReply } from './script.js';
import { arguments_object, split_text } from './split.js';

const FINISH: Record<FinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
};

/** The thought signature sent with a reply's first function call and its thoughts. */
export const GEMINI_FAKE_SIGNATURE = 'CiQBcsjafake-gemini-thought-signature==';

/** The model a Gemini request names: the `models/<model>:…` part of its path. */
function path_model(path: string): string {
  return /\/models\/([^/:]+):/.exec(path)?.[1] ?? 'gemini-fake';
}

/**
 * Renders a reply as the Gemini API: `streamGenerateContent?alt=sse` chunks (thoughts as parts
 * with `thought: true`, text in pieces, each function call whole, its first one carrying a thought
 * signature, then a last chunk with `finishReason` and `usageMetadata`; no terminal event, the
 * body just ends), or one `generateContent` body when not streaming.
 */
export function render_gemini(reply: FakeReply, context: RenderContext): RenderedResponse {
  const resolved = resolve_reply(reply, context, 'call_fake');
  const finish = reply.wire_finish_reason ?? FINISH[resolved.finish_reason];
  const model = path_model(context.request.path);
  const headers = { 'x-request-id': `req_gemini_${context.sequence}`, ...reply.headers };
  const usage = {
    promptTokenCount: resolved.usage.input_tokens,
    candidatesTokenCount: resolved.usage.output_tokens - (resolved.usage.reasoning_tokens ?? 0),
    totalTokenCount: resolved.usage.input_tokens + resolved.usage.output_tokens,
    ...(resolved.usage.cache_read_tokens === undefined
      ? {}
      : { cachedContentTokenCount: resolved.usage.cache_read_tokens }),
    ...(resolved.usage.reasoning_tokens === undefined
      ? {}
      : { thoughtsTokenCount: resolved.usage.reasoning_tokens }),
  };
  const calls = resolved.tool_calls.map((call, index) => ({
    functionCall: { name: call.name, args: arguments_object(call.arguments) },
    ...(index === 0 ? { thoughtSignature: GEMINI_FAKE_SIGNATURE } : {}),
  }));
  const chunk = (parts: unknown[], last = false) => ({
    candidates: [
      {
        content: { role: 'model', parts },
        index: 0,
        ...(last ? { finishReason: finish } : {}),
      },
    ],
    ...(last ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: `resp_fake_${context.sequence}`,
  });

  if (!context.request.stream) {
    const parts: unknown[] = [];
    if (resolved.reasoning !== '') parts.push({ text: resolved.reasoning, thought: true });
    if (resolved.text !== '') parts.push({ text: resolved.text });
    parts.push(...calls);
    return {
      status: 200,
      content_type: 'application/json; charset=UTF-8',
      headers,
      parts: [JSON.stringify(chunk(parts, true))],
    };
  }

  const parts: string[] = [];
  for (const piece of split_text(resolved.reasoning, resolved.chunk_chars)) {
    parts.push(sse_event(chunk([{ text: piece, thought: true }])));
  }
  for (const piece of split_text(resolved.text, resolved.chunk_chars)) {
    parts.push(sse_event(chunk([{ text: piece }])));
  }
  if (calls.length > 0) parts.push(sse_event(chunk(calls)));
  if (reply.error_event) {
    const error = { code: 500, message: reply.error_event.message, status: 'INTERNAL' };
    parts.push(sse_event({ error }));
  } else if (!reply.unterminated) {
    parts.push(sse_event(chunk([{ text: '' }], true)));
  }
  return { status: 200, content_type: 'text/event-stream', headers, parts };
}

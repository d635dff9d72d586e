import type {
  AssistantMessage,
  ChatResult,
  FinishReason,
  ReasoningPart,
  ToolCall,
  Usage,
} from '@lich/core';
import { BaseStreamState, ProviderError, type SseChunk } from '@lich/providers';
import type { GeminiResponse, GeminiUsage } from './gemini_api.js';
import { read_gemini_error } from './read_gemini_error.js';

/** Gemini's finish reasons, in Lich's words; anything else not listed is `other`. */
const FINISH: Record<string, FinishReason> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
};

/**
 * Puts a Gemini answer together: each `data:` chunk of `streamGenerateContent?alt=sse`, or the one
 * body of `generateContent` (pushed as one chunk).
 *
 * Contract:
 * - `push` hands each text piece and each thought (`thought: true`) to `on_delta` at once, in
 *   order, exactly once; function calls come whole, each with a fresh id unless the API gave one
 *   (parallel calls included); thought signatures are kept in `reasoning_parts` (one that came
 *   on a function call as a part with no text);
 * - `push` throws only `ProviderError` (unless `on_delta` throws): `parse` for a chunk that is not
 *   a JSON object; `http` for an error reported in the stream (its code as status) or a prompt
 *   the API blocked (`promptFeedback.blockReason`, not retryable);
 * - the stream has no final event: the body's end ends it, and `result` throws a `stream` error
 *   when no finish reason came;
 * - usage: `promptTokenCount` as input (cached tokens included, also apart), candidates plus
 *   thoughts as output (thoughts also apart).
 */
export class GeminiStreamState extends BaseStreamState<SseChunk> {
  private text = '';
  private reasoning = '';
  private readonly parts: ReasoningPart[] = [];
  private readonly tool_calls: ToolCall[] = [];
  private finish_reason: string | undefined;
  private usage: GeminiUsage | undefined;
  private model: string | undefined;

  /** Takes one SSE event. */
  push(chunk: SseChunk): void {
    if (chunk.data.trim() === '') return;
    this.take(this.parse_object<GeminiResponse>(chunk.data, 'a stream chunk'));
  }

  /** Takes one parsed answer (a stream chunk or a whole body). */
  take(response: GeminiResponse): void {
    if (response.error !== undefined) {
      const info = read_gemini_error(response);
      const status = response.error.code;
      throw new ProviderError({
        kind: 'http',
        ...this.context,
        status: typeof status === 'number' && status >= 400 ? status : undefined,
        provider_message: info?.message,
        code: info?.code,
        delivered: this.delivered,
      });
    }
    const blocked = response.promptFeedback?.blockReason;
    if (blocked !== undefined && !response.candidates?.length) {
      throw new ProviderError({
        kind: 'http',
        ...this.context,
        code: blocked,
        provider_message: `the prompt was blocked (${blocked})`,
        retryable: false,
        delivered: this.delivered,
      });
    }
    if (typeof response.modelVersion === 'string') this.model = response.modelVersion;
    if (response.usageMetadata) this.usage = response.usageMetadata;
    const candidate = response.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall !== undefined) {
        const name = part.functionCall.name?.trim() ?? '';
        if (name === '') throw this.error('parse', 'a function call has no name');
        if (part.thoughtSignature && this.tool_calls.length === 0) {
          this.parts.push({ text: '', signature: part.thoughtSignature });
        }
        this.tool_calls.push({
          id: part.functionCall.id || `call_${crypto.randomUUID()}`,
          name,
          arguments: JSON.stringify(part.functionCall.args ?? {}),
        });
      } else if (part.thought === true) {
        const text = part.text ?? '';
        if (text !== '') {
          this.reasoning += text;
          this.emit({ kind: 'reasoning', text });
        }
        if (text !== '' || part.thoughtSignature) {
          const last = this.parts.at(-1);
          // a thought's pieces stream one after another: one part, its signature at the end
          if (last !== undefined && last.text !== '' && last.signature === undefined) {
            last.text += text;
            if (part.thoughtSignature) last.signature = part.thoughtSignature;
          } else {
            const piece: ReasoningPart = { text };
            if (part.thoughtSignature) piece.signature = part.thoughtSignature;
            this.parts.push(piece);
          }
        }
      } else if (typeof part.text === 'string' && part.text !== '') {
        this.text += part.text;
        this.emit({ kind: 'text', text: part.text });
      }
    }
    if (candidate?.finishReason) this.finish_reason = candidate.finishReason;
  }

  /** The finished turn. */
  result(): ChatResult {
    if (this.finish_reason === undefined) {
      throw this.error('stream', 'the stream ended before a finishReason');
    }
    const message: AssistantMessage = { role: 'assistant', content: this.text };
    if (this.tool_calls.length > 0) message.tool_calls = [...this.tool_calls];
    if (this.reasoning !== '') message.reasoning = this.reasoning;
    if (this.parts.length > 0) message.reasoning_parts = [...this.parts];
    const mapped = FINISH[this.finish_reason] ?? 'other';
    const result: ChatResult = {
      message,
      finish_reason: this.tool_calls.length > 0 && mapped === 'stop' ? 'tool_calls' : mapped,
      provider: this.context.provider,
      model: this.model || this.context.model,
    };
    const usage = map_gemini_usage(this.usage);
    if (usage) result.usage = usage;
    return result;
  }
}

/** Gemini's token counts in Lich's terms; `undefined` when none came. Never throws. */
export function map_gemini_usage(usage: GeminiUsage | undefined): Usage | undefined {
  if (usage === undefined) return undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  const thoughts = count(usage.thoughtsTokenCount);
  const result: Usage = {
    input_tokens: count(usage.promptTokenCount),
    output_tokens: count(usage.candidatesTokenCount) + thoughts,
  };
  const cached = count(usage.cachedContentTokenCount);
  if (cached > 0) result.cache_read_tokens = cached;
  if (thoughts > 0) result.reasoning_tokens = thoughts;
  return result;
}

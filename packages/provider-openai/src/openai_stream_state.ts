import type { ChatResult } from '@lich/core';
import { BaseStreamState, ProviderError, type SseChunk } from '@lich/providers';
import { arguments_text, type ToolCallSlot } from './collect_tool_calls.js';
import { pick_reasoning } from './from_openai_response.js';
import type { OpenAiChunk, OpenAiToolCallDelta, OpenAiUsage } from './openai_api.js';
import { build_openai_result } from './openai_result.js';
import { read_openai_error } from './read_openai_error.js';

/**
 * Puts a streamed chat completion together from its `data:` payloads, one at a time.
 *
 * Contract:
 * - `push` takes the data of one SSE event; text and reasoning pieces go to `on_delta` at once,
 *   in order, each exactly once; tool call pieces are joined by their `index`;
 * - `push` throws a `ProviderError` (never anything else, unless `on_delta` itself throws): kind
 *   `parse` for a payload that is not JSON, kind `http` or `stream` for an error chunk;
 * - `result` throws a `ProviderError` of kind `stream` when neither `[DONE]` nor a finish reason
 *   arrived (the stream was cut), or of kind `parse` for a tool call with no name;
 * - every error carries `delivered`: whether a delta had reached `on_delta` before it.
 */
export class OpenAiStreamState extends BaseStreamState<SseChunk> {
  private text = '';
  private reasoning = '';
  private readonly slots: ToolCallSlot[] = [];
  private finish_reason: string | null | undefined;
  private usage: OpenAiUsage | null | undefined;
  private model: string | undefined;

  /** Takes one SSE event. */
  push(event: SseChunk): void {
    const trimmed = event.data.trim();
    if (trimmed === '') return;
    if (trimmed === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = this.parse_object<OpenAiChunk>(trimmed, 'a stream chunk');
    if (chunk.error !== undefined && chunk.error !== null) throw this.chunk_error(chunk);
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!choice) return;
    const delta = choice.delta;
    if (delta) {
      const reasoning = pick_reasoning(delta.reasoning_content, delta.reasoning);
      if (reasoning !== '') {
        this.reasoning += reasoning;
        this.emit({ kind: 'reasoning', text: reasoning });
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        this.text += delta.content;
        this.emit({ kind: 'text', text: delta.content });
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const piece of delta.tool_calls) this.add_tool_call_piece(piece);
      }
    }
    if (choice.finish_reason) this.finish_reason = choice.finish_reason;
  }

  /** The finished turn. */
  result(): ChatResult {
    if (!this.done && !this.finish_reason) {
      throw this.error('stream', 'the stream ended before [DONE] or a finish_reason');
    }
    return build_openai_result(
      {
        text: this.text,
        reasoning: this.reasoning,
        slots: this.slots,
        finish_reason: this.finish_reason,
        usage: this.usage,
        model: this.model,
      },
      this.context,
      this.delivered,
    );
  }

  private add_tool_call_piece(piece: OpenAiToolCallDelta): void {
    if (typeof piece !== 'object' || piece === null) return;
    const index = this.slot_index(piece);
    let slot = this.slots[index];
    if (!slot) {
      slot = { arguments: '' };
      this.slots[index] = slot;
    }
    if (piece.id && !slot.id) slot.id = piece.id;
    // The name comes whole in the first piece; some servers repeat it in every piece.
    if (piece.function?.name && !slot.name) slot.name = piece.function.name;
    const args = piece.function?.arguments;
    if (typeof args === 'string') slot.arguments += args;
    else if (args !== undefined && args !== null) slot.arguments = arguments_text(args);
  }

  /** Servers that leave out `index` start a new call with each new id. */
  private slot_index(piece: OpenAiToolCallDelta): number {
    if (typeof piece.index === 'number' && piece.index >= 0) return piece.index;
    const last = this.slots.length - 1;
    if (last < 0) return 0;
    if (piece.id && this.slots[last]?.id && this.slots[last]?.id !== piece.id) return last + 1;
    return last;
  }

  private chunk_error(chunk: OpenAiChunk): ProviderError {
    const info = read_openai_error(chunk);
    return new ProviderError({
      // A failure reported after the 200 with an HTTP-like code is judged like that status;
      // without one it is a broken stream, worth one more try when nothing was delivered.
      kind: info.status === undefined ? 'stream' : 'http',
      ...this.context,
      ...info,
      delivered: this.delivered,
    });
  }
}

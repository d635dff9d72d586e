import type { AssistantMessage, ChatResult, ToolCall, Usage } from '@lich/core';
import { one_line } from '@lich/core';
import { BaseStreamState, ProviderError } from '@lich/providers';
import { map_ollama_done_reason } from './map_ollama_done_reason.js';
import type { OllamaChunk, OllamaResponseToolCall } from './ollama_api.js';

/**
 * Puts an `/api/chat` answer together: each NDJSON line of a stream, or the one body of a
 * non-streaming answer (which is a single chunk with `done: true`).
 *
 * Contract:
 * - `push` takes one parsed line; `message.content` and `message.thinking` pieces go to
 *   `on_delta` at once, in order, each exactly once; tool calls (Ollama sends each one whole) are
 *   collected in order, parallel calls included;
 * - `push_line` parses a line first; both throw only `ProviderError` (unless `on_delta` throws):
 *   kind `parse` for a line that is not a JSON object or a tool call with no name, kind `stream`
 *   for an `error` line (Ollama reports failures after the 200 that way);
 * - `result` throws a `ProviderError` of kind `stream` when no `done: true` line arrived;
 * - every error carries `delivered`: whether a delta had reached `on_delta` before it.
 */
export class OllamaStreamState extends BaseStreamState<unknown> {
  private text = '';
  private thinking = '';
  private readonly tool_calls: ToolCall[] = [];
  private done_reason: string | undefined;
  private usage: Usage | undefined;
  private model: string | undefined;

  /** Parses one NDJSON line and takes it. Blank lines are skipped. */
  push_line(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw this.error('parse', `a stream line is not JSON: ${one_line(line, 120)}`, error);
    }
    this.push(value);
  }

  /** Takes one parsed line (or a whole non-streaming body). */
  push(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw this.error(
        'parse',
        `a stream line is not an object: ${one_line(JSON.stringify(value), 120)}`,
      );
    }
    const chunk = value as OllamaChunk;
    if (chunk.error !== undefined && chunk.error !== null) {
      const text = typeof chunk.error === 'string' ? chunk.error : chunk.error.message;
      throw new ProviderError({
        kind: 'stream',
        ...this.context,
        provider_message: text ? one_line(text, 300) : 'unknown error',
        delivered: this.delivered,
      });
    }
    if (typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    const message = chunk.message;
    if (message && typeof message === 'object') {
      if (typeof message.thinking === 'string' && message.thinking !== '') {
        this.thinking += message.thinking;
        this.emit({ kind: 'reasoning', text: message.thinking });
      }
      if (typeof message.content === 'string' && message.content !== '') {
        this.text += message.content;
        this.emit({ kind: 'text', text: message.content });
      }
      if (Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) this.add_tool_call(call);
      }
    }
    if (chunk.done === true) {
      this.done = true;
      this.done_reason = chunk.done_reason;
      this.usage = {
        input_tokens: count(chunk.prompt_eval_count),
        output_tokens: count(chunk.eval_count),
      };
    }
  }

  /** The finished turn. */
  result(): ChatResult {
    if (!this.done) throw this.error('stream', 'the stream ended before the line with done: true');
    const message: AssistantMessage = { role: 'assistant', content: this.text };
    if (this.tool_calls.length > 0) message.tool_calls = [...this.tool_calls];
    if (this.thinking !== '') message.reasoning = this.thinking;
    const result: ChatResult = {
      message,
      finish_reason: map_ollama_done_reason(this.done_reason, this.tool_calls.length > 0),
      provider: this.context.provider,
      model: this.model || this.context.model,
    };
    if (this.usage) result.usage = this.usage;
    return result;
  }

  private add_tool_call(call: OllamaResponseToolCall): void {
    const name = typeof call?.function?.name === 'string' ? call.function.name.trim() : '';
    if (name === '') {
      throw this.error('parse', `tool call ${this.tool_calls.length} has no function name`);
    }
    const args = call.function?.arguments;
    let text = '{}';
    if (typeof args === 'string') text = args.trim() || '{}';
    else if (args !== undefined && args !== null) text = JSON.stringify(args);
    // Ollama gives no ids (newer versions may); the loop needs one to pair results with calls.
    const id =
      typeof call.id === 'string' && call.id !== '' ? call.id : `call_${crypto.randomUUID()}`;
    this.tool_calls.push({ id, name, arguments: text });
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

import type { ChatResult } from '@lich/core';
import { BaseStreamState, ProviderError, type SseChunk } from '@lich/providers';
import type { AnthropicEvent, AnthropicResponseBlock, AnthropicUsage } from './anthropic_api.js';
import { type AnthropicTurnBlock, build_anthropic_result } from './anthropic_result.js';
import { is_retryable_anthropic_type, read_anthropic_error } from './read_anthropic_error.js';

/** A block being streamed; `skip` marks block types Lich does not use (server tools). */
type OpenBlock = AnthropicTurnBlock | { type: 'skip' };

/**
 * Puts a streamed Messages API answer together, one SSE event at a time.
 *
 * Contract:
 * - `push` takes one event (its name, or the data's `type` when it is unnamed or `message`);
 *   text and thinking pieces go to `on_delta` at once, in order, each exactly once; tool input
 *   JSON pieces are joined per block; signatures are kept with their thinking block; unknown
 *   events are ignored;
 * - `push` throws only `ProviderError` (unless `on_delta` throws): kind `parse` for data that is
 *   not JSON or a delta for a block never started; kind `http` for an `error` event, retryable
 *   for `overloaded_error` (with status 529), `api_error`, `rate_limit_error` and
 *   `timeout_error`;
 * - `result` throws a `ProviderError` of kind `stream` when neither `message_stop` nor a stop
 *   reason arrived (the stream was cut), or of kind `parse` for a tool call with no name;
 * - every error carries `delivered`: whether a delta had reached `on_delta` before it.
 */
export class AnthropicStreamState extends BaseStreamState<SseChunk> {
  private readonly blocks: OpenBlock[] = [];
  private stop_reason: string | null | undefined;
  private usage: AnthropicUsage = {};
  private model: string | undefined;

  /** Takes one SSE event. */
  push(chunk: SseChunk): void {
    const { event: event_name, data } = chunk;
    if (data.trim() === '') return;
    const event = this.parse_object<AnthropicEvent>(data, 'a stream event');
    // An unnamed SSE event is `message`; the data's own `type` names it then.
    const type = event_name && event_name !== 'message' ? event_name : event.type;
    switch (type) {
      case 'message_start':
        if (event.message?.model) this.model = event.message.model;
        this.add_usage(event.message?.usage);
        break;
      case 'content_block_start':
        this.start_block(event.index, event.content_block);
        break;
      case 'content_block_delta':
        this.add_delta(event);
        break;
      case 'message_delta':
        if (event.delta?.stop_reason) this.stop_reason = event.delta.stop_reason;
        this.add_usage(event.usage);
        break;
      case 'message_stop':
        this.done = true;
        break;
      case 'error': {
        const info = read_anthropic_error(event);
        throw new ProviderError({
          kind: 'http',
          ...this.context,
          ...info,
          // Anthropic answers `overloaded_error` with 529 before a stream starts; the same status
          // here lets the router treat both alike.
          status: info.code === 'overloaded_error' ? 529 : undefined,
          retryable: is_retryable_anthropic_type(info.code),
          delivered: this.delivered,
        });
      }
    }
  }

  /** The finished turn. */
  result(): ChatResult {
    if (!this.done && !this.stop_reason) {
      throw this.error('stream', 'the stream ended before message_stop');
    }
    const blocks = this.blocks.filter(
      (block): block is AnthropicTurnBlock => block !== undefined && block.type !== 'skip',
    );
    return build_anthropic_result(
      { blocks, stop_reason: this.stop_reason, usage: this.usage, model: this.model },
      this.context,
      this.delivered,
    );
  }

  private start_block(index: number | undefined, block: AnthropicResponseBlock | undefined): void {
    const at = typeof index === 'number' && index >= 0 ? index : this.blocks.length;
    switch (block?.type) {
      case 'text':
        this.blocks[at] = { type: 'text', text: '' };
        this.add_text(at, block.text);
        break;
      case 'thinking':
        this.blocks[at] = { type: 'thinking', thinking: '', signature: block.signature ?? '' };
        this.add_thinking(at, block.thinking);
        break;
      case 'redacted_thinking':
        this.blocks[at] = { type: 'redacted_thinking', data: block.data ?? '' };
        break;
      case 'tool_use': {
        // The start carries `input: {}`; the real input follows as input_json_delta pieces.
        const input = block.input;
        const has_input =
          typeof input === 'object' && input !== null && Object.keys(input).length > 0;
        this.blocks[at] = {
          type: 'tool_use',
          id: block.id ?? '',
          name: block.name ?? '',
          arguments: has_input ? JSON.stringify(input) : '',
        };
        break;
      }
      default:
        this.blocks[at] = { type: 'skip' };
    }
  }

  private add_delta(event: AnthropicEvent): void {
    const index = typeof event.index === 'number' ? event.index : this.blocks.length - 1;
    const block = this.blocks[index];
    if (!block)
      throw this.error('parse', `content_block_delta for block ${index} before its start`);
    const delta = event.delta ?? {};
    if (delta.type === 'text_delta' && block.type === 'text') this.add_text(index, delta.text);
    else if (delta.type === 'thinking_delta' && block.type === 'thinking') {
      this.add_thinking(index, delta.thinking);
    } else if (delta.type === 'signature_delta' && block.type === 'thinking') {
      block.signature += delta.signature ?? '';
    } else if (delta.type === 'input_json_delta' && block.type === 'tool_use') {
      block.arguments += delta.partial_json ?? '';
    }
  }

  private add_text(index: number, text: string | undefined): void {
    const block = this.blocks[index];
    if (!text || block?.type !== 'text') return;
    block.text += text;
    this.emit({ kind: 'text', text });
  }

  private add_thinking(index: number, text: string | undefined): void {
    const block = this.blocks[index];
    if (!text || block?.type !== 'thinking') return;
    block.thinking += text;
    this.emit({ kind: 'reasoning', text });
  }

  /** Later counts replace earlier ones field by field (`message_delta` repeats them, cumulative). */
  private add_usage(usage: AnthropicUsage | null | undefined): void {
    if (!usage || typeof usage !== 'object') return;
    for (const [key, value] of Object.entries(usage)) {
      if (typeof value === 'number') (this.usage as Record<string, number>)[key] = value;
      else if (key === 'cache_creation' && typeof value === 'object' && value !== null) {
        this.usage.cache_creation = { ...value };
      }
    }
  }
}

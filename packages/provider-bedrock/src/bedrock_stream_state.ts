import type {
  AssistantMessage,
  ChatResult,
  FinishReason,
  ReasoningPart,
  ToolCall,
  Usage,
} from '@lich/core';
import { BaseStreamState, ProviderError } from '@lich/providers';
import type { BedrockBlock, BedrockEvent, BedrockResponse, BedrockUsage } from './bedrock_api.js';
import type { EventStreamMessage } from './event_stream_decoder.js';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

/** Stream exceptions worth a retry (throttling and the service's own failures), with a status. */
const EXCEPTION_STATUS: Record<string, number> = {
  throttlingException: 429,
  serviceUnavailableException: 503,
  internalServerException: 500,
  modelStreamErrorException: 500,
  validationException: 400,
};

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool'; id: string; name: string; input: string }
  | { type: 'reasoning'; part: ReasoningPart };

/**
 * Puts a Converse answer together: each event-stream message of `converse-stream`, or the body of
 * `converse` (through `take_whole`).
 *
 * Contract:
 * - `push` hands text and reasoning pieces to `on_delta` at once, in order, exactly once; tool
 *   input JSON pieces are joined per block (parallel calls kept apart by their block index);
 *   reasoning keeps its signature (and redacted blocks) for the next turn;
 * - an `exception` message throws a `ProviderError` of kind `http`, with the status its type
 *   means (`throttlingException` 429, retryable; `validationException` 400, not); a message that
 *   is not JSON throws kind `parse`;
 * - `done` turns true at `metadata` (after `messageStop`); `result` throws kind `stream` when
 *   `messageStop` never came.
 */
export class BedrockStreamState extends BaseStreamState<EventStreamMessage> {
  private readonly blocks: Block[] = [];
  private stop_reason: string | undefined;
  private usage: BedrockUsage | undefined;

  /** Takes one event-stream message. */
  push(message: EventStreamMessage): void {
    const kind = message.headers[':message-type'];
    if (kind === 'exception' || kind === 'error') {
      const type = message.headers[':exception-type'] ?? message.headers[':error-code'] ?? 'error';
      let text = message.headers[':error-message'];
      try {
        text ??= (JSON.parse(message.payload) as BedrockEvent).message;
      } catch {
        text ??= message.payload;
      }
      throw new ProviderError({
        kind: 'http',
        ...this.context,
        status: EXCEPTION_STATUS[type],
        code: type,
        provider_message: text,
        delivered: this.delivered,
      });
    }
    const event = this.parse_object<BedrockEvent>(message.payload, 'a stream event');
    switch (message.headers[':event-type']) {
      case 'contentBlockStart': {
        const tool = event.start?.toolUse;
        if (tool !== undefined) {
          this.blocks[event.contentBlockIndex ?? this.blocks.length] = {
            type: 'tool',
            id: tool.toolUseId ?? '',
            name: tool.name ?? '',
            input: '',
          };
        }
        break;
      }
      case 'contentBlockDelta':
        this.add_delta(event);
        break;
      case 'messageStop':
        this.stop_reason = event.stopReason ?? 'end_turn';
        break;
      case 'metadata':
        this.usage = event.usage;
        if (this.stop_reason !== undefined) this.done = true;
        break;
    }
  }

  private add_delta(event: BedrockEvent): void {
    const index = event.contentBlockIndex ?? this.blocks.length;
    const delta = event.delta ?? {};
    if (typeof delta.text === 'string') {
      const block = this.blocks[index] ?? { type: 'text', text: '' };
      this.blocks[index] = block;
      if (block.type === 'text' && delta.text !== '') {
        block.text += delta.text;
        this.emit({ kind: 'text', text: delta.text });
      }
    } else if (delta.toolUse !== undefined) {
      const block = this.blocks[index];
      if (block?.type !== 'tool')
        throw this.error('parse', `tool input for block ${index} before its start`);
      block.input += delta.toolUse.input ?? '';
    } else if (delta.reasoningContent !== undefined) {
      const block = this.blocks[index] ?? { type: 'reasoning', part: { text: '' } };
      this.blocks[index] = block;
      if (block.type !== 'reasoning') return;
      const { text, signature, redactedContent } = delta.reasoningContent;
      if (text) {
        block.part.text += text;
        this.emit({ kind: 'reasoning', text });
      }
      if (signature) block.part.signature = (block.part.signature ?? '') + signature;
      if (redactedContent) block.part.redacted = redactedContent;
    }
  }

  /** Takes a whole `converse` answer as if it had streamed. */
  take_whole(response: BedrockResponse): void {
    const content: BedrockBlock[] = response.output?.message?.content ?? [];
    for (const block of content) {
      if (typeof block.text === 'string') this.blocks.push({ type: 'text', text: block.text });
      else if (block.toolUse) {
        this.blocks.push({
          type: 'tool',
          id: block.toolUse.toolUseId,
          name: block.toolUse.name,
          input: JSON.stringify(block.toolUse.input ?? {}),
        });
      } else if (block.reasoningContent) {
        const part: ReasoningPart = { text: block.reasoningContent.reasoningText?.text ?? '' };
        if (block.reasoningContent.reasoningText?.signature) {
          part.signature = block.reasoningContent.reasoningText.signature;
        }
        if (block.reasoningContent.redactedContent)
          part.redacted = block.reasoningContent.redactedContent;
        this.blocks.push({ type: 'reasoning', part });
      }
    }
    this.stop_reason = response.stopReason ?? 'end_turn';
    this.usage = response.usage;
    this.done = true;
  }

  /** The finished turn. */
  result(): ChatResult {
    if (this.stop_reason === undefined)
      throw this.error('stream', 'the stream ended before messageStop');
    let text = '';
    const tool_calls: ToolCall[] = [];
    const parts: ReasoningPart[] = [];
    for (const block of this.blocks) {
      if (block === undefined) continue;
      if (block.type === 'text') text += block.text;
      else if (block.type === 'reasoning') parts.push(block.part);
      else {
        if (block.name.trim() === '') throw this.error('parse', 'a toolUse block has no name');
        tool_calls.push({
          id: block.id || `call_${crypto.randomUUID()}`,
          name: block.name,
          arguments: block.input.trim() || '{}',
        });
      }
    }
    const message: AssistantMessage = { role: 'assistant', content: text };
    if (tool_calls.length > 0) message.tool_calls = tool_calls;
    const reasoning = parts.map((part) => part.text).join('');
    if (reasoning !== '') message.reasoning = reasoning;
    if (parts.length > 0) message.reasoning_parts = parts;
    const result: ChatResult = {
      message,
      finish_reason: FINISH[this.stop_reason] ?? 'other',
      provider: this.context.provider,
      model: this.context.model,
    };
    const usage = map_bedrock_usage(this.usage);
    if (usage) result.usage = usage;
    return result;
  }
}

/**
 * Converse token counts in Lich's terms (input includes the cached reads and writes; the writes
 * with a 1 hour TTL, from `cacheDetails`, as `cache_write_1h_tokens`).
 */
export function map_bedrock_usage(usage: BedrockUsage | undefined): Usage | undefined {
  if (usage === undefined) return undefined;
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) ? value : 0;
  const read = count(usage.cacheReadInputTokens);
  const write = count(usage.cacheWriteInputTokens);
  const result: Usage = {
    input_tokens: count(usage.inputTokens) + read + write,
    output_tokens: count(usage.outputTokens),
  };
  if (read > 0) result.cache_read_tokens = read;
  if (write > 0) result.cache_write_tokens = write;
  let hour = 0;
  for (const detail of Array.isArray(usage.cacheDetails) ? usage.cacheDetails : []) {
    if (detail?.ttl === '1h') hour += count(detail.inputTokens);
  }
  hour = Math.min(hour, write);
  if (hour > 0) result.cache_write_1h_tokens = hour;
  return result;
}

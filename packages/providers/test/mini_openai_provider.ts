import type { ChatDelta, ChatResult } from '@lich/core';
import type { CallContext } from '../src/call_context.js';
import type { LLMProvider, ProviderConfig } from '../src/provider.js';
import { ProviderError } from '../src/provider_error.js';
import { send_chat } from '../src/send_chat.js';
import type { SseChunk, StreamState } from '../src/stream_state.js';

/** Text deltas of an OpenAI-style stream, and nothing else. */
class MiniStreamState implements StreamState<SseChunk> {
  delivered = false;
  done = false;
  #text = '';

  constructor(
    private readonly context: CallContext,
    private readonly on_delta?: (delta: ChatDelta) => void,
  ) {}

  push(event: SseChunk): void {
    if (event.data === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = JSON.parse(event.data) as {
      error?: { message?: string; type?: string };
      choices?: Array<{ delta?: { content?: string } }>;
    };
    if (chunk.error) {
      throw new ProviderError({
        kind: 'http',
        ...this.context,
        code: chunk.error.type,
        provider_message: chunk.error.message,
      });
    }
    const piece = chunk.choices?.[0]?.delta?.content;
    if (piece) {
      this.#text += piece;
      this.delivered = true;
      this.on_delta?.({ kind: 'text', text: piece });
    }
  }

  result(): ChatResult {
    if (!this.done) {
      throw new ProviderError({
        kind: 'stream',
        ...this.context,
        cause: new Error('the stream ended before [DONE]'),
      });
    }
    return { message: { role: 'assistant', content: this.#text }, finish_reason: 'stop' };
  }
}

/**
 * A deliberately small OpenAI-style streaming provider for the router's end-to-end tests: text
 * deltas only, its wire mapping on `send_chat` as real providers are. The real one lives in
 * @lich/provider-openai, which this package must not import.
 */
export function create_mini_openai(config: ProviderConfig): LLMProvider {
  const context: CallContext = { provider: config.kind, model: config.model };
  return {
    kind: config.kind,
    model: config.model,
    chat: (messages, _tools, options = {}) =>
      send_chat(
        {
          url: `${config.base_url}/chat/completions`,
          body: { model: config.model, messages, stream: true },
          context,
          idle_timeout_ms: config.idle_timeout_ms,
          stream: true,
          framing: 'sse',
          stream_state: (on_delta) => new MiniStreamState(context, on_delta),
          from_json: () => {
            throw new ProviderError({
              kind: 'parse',
              ...context,
              cause: new Error('not a stream'),
            });
          },
        },
        options,
      ),
  };
}

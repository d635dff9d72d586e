import type { ChatResult } from '@lich/core';
import { create_http_provider } from '../src/http/http_provider.js';
import type { LLMProvider, ProviderConfig } from '../src/provider.js';
import { ProviderError } from '../src/provider_error.js';
import { SseParser } from '../src/sse_parser.js';
import { BaseStreamState, type SseChunk } from '../src/stream_state.js';

/** Text deltas of an OpenAI-style stream, and nothing else. */
class MiniStreamState extends BaseStreamState<SseChunk> {
  #text = '';

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
      this.emit({ kind: 'text', text: piece });
    }
  }

  result(): ChatResult {
    if (!this.done) throw this.error('stream', 'the stream ended before [DONE]');
    return { message: { role: 'assistant', content: this.#text }, finish_reason: 'stop' };
  }
}

/**
 * A deliberately small OpenAI-style streaming provider for the router's end-to-end tests: text
 * deltas only, its wire mapping on `create_http_provider` as real providers are. The real one
 * lives in @lich/provider-openai, which this package must not import.
 */
export function create_mini_openai(config: ProviderConfig): LLMProvider {
  return create_http_provider(config, {
    kind: config.kind,
    settings: { url: `${config.base_url}/chat/completions`, headers: {} },
    build_request: (_config, _settings, messages) => ({
      model: config.model,
      messages,
      stream: true,
    }),
    decoder: () => new SseParser(),
    stream_state: (context, on_delta) => new MiniStreamState(context, on_delta),
    from_json: (_body, context) => {
      throw new ProviderError({ kind: 'parse', ...context, cause: new Error('not a stream') });
    },
  });
}

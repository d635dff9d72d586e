import type { ChatResult } from '@lich/core';
import { post_json } from '../src/post_json.js';
import type { LLMProvider, ProviderConfig } from '../src/provider.js';
import { ProviderError } from '../src/provider_error.js';
import { read_sse } from '../src/read_sse.js';
import { to_provider_error } from '../src/to_provider_error.js';

/**
 * A deliberately small OpenAI-style streaming provider for the router's end-to-end tests: text
 * deltas only, built on `post_json`, `read_sse` and `to_provider_error` as real providers are.
 * The real one lives in @lich/provider-openai, which this package must not import.
 */
export function create_mini_openai(config: ProviderConfig): LLMProvider {
  const name = config.kind;
  return {
    kind: name,
    model: config.model,
    async chat(messages, _tools, options = {}): Promise<ChatResult> {
      const context = { provider: name, model: config.model, signal: options.signal };
      try {
        const response = await post_json(
          `${config.base_url}/chat/completions`,
          { model: config.model, messages, stream: true },
          {
            provider: name,
            model: config.model,
            signal: options.signal,
            idle_timeout_ms: config.idle_timeout_ms,
          },
        );
        let text = '';
        let finished = false;
        for await (const event of read_sse(response.body, { signal: options.signal })) {
          if (event.data === '[DONE]') {
            finished = true;
            break;
          }
          const chunk = JSON.parse(event.data) as {
            error?: { message?: string; type?: string };
            choices?: Array<{ delta?: { content?: string } }>;
          };
          if (chunk.error) {
            throw new ProviderError({
              kind: 'http',
              provider: name,
              model: config.model,
              code: chunk.error.type,
              provider_message: chunk.error.message,
            });
          }
          const piece = chunk.choices?.[0]?.delta?.content;
          if (piece) {
            text += piece;
            options.on_delta?.({ kind: 'text', text: piece });
          }
        }
        if (!finished) {
          throw new ProviderError({
            kind: 'stream',
            provider: name,
            model: config.model,
            cause: new Error('the stream ended before [DONE]'),
          });
        }
        return { message: { role: 'assistant', content: text }, finish_reason: 'stop' };
      } catch (error) {
        throw to_provider_error(error, context);
      }
    },
  };
}

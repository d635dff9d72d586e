import type { ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import {
  type LLMProvider,
  type ProviderConfig,
  post_json,
  read_ndjson,
  to_provider_error,
} from '@lich/providers';
import type { OllamaRequest } from './ollama_api.js';
import { OLLAMA_KIND, type OllamaSettings, read_ollama_settings } from './ollama_settings.js';
import { type OllamaCallContext, OllamaStreamState } from './ollama_stream_state.js';
import { to_ollama_messages, to_ollama_tools } from './to_ollama_messages.js';

/**
 * Builds a provider for Ollama's native `/api/chat`. `base_url` defaults to
 * `http://127.0.0.1:11434`. See `OllamaOptions` for `config.options` (streaming, `think`,
 * `keep_alive`, model options such as `num_ctx`).
 *
 * Contract:
 * - does no I/O; throws a `ProviderError` of kind `config` for a bad base URL or option;
 * - `chat` makes exactly one `POST <base>/api/chat`, streaming NDJSON by default (content and
 *   thinking go to `on_delta` once each, in order);
 * - `chat` rejects only with a `ProviderError` (an `{"error": …}` line after the 200 included),
 *   with `delivered` set when a delta had reached `on_delta`, and promptly with kind `aborted`
 *   when `options.signal` fires.
 */
export function create_ollama_provider(config: ProviderConfig): LLMProvider {
  const settings = read_ollama_settings(config);
  return {
    kind: OLLAMA_KIND,
    model: config.model,
    chat: (messages, tools, options = {}) => chat(config, settings, messages, tools, options),
  };
}

/** The request body of one call. */
export function build_ollama_request(
  config: ProviderConfig,
  settings: OllamaSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
): OllamaRequest {
  const request: OllamaRequest = {
    model: config.model,
    messages: to_ollama_messages(messages),
    stream: settings.stream,
  };
  if (tools.length > 0) request.tools = to_ollama_tools(tools);
  if (settings.think !== undefined) request.think = settings.think;
  const model_options: Record<string, unknown> = { ...settings.model_options };
  if (config.temperature !== undefined) model_options.temperature = config.temperature;
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) model_options.num_predict = limit;
  if (Object.keys(model_options).length > 0) request.options = model_options;
  if (settings.keep_alive !== undefined) request.keep_alive = settings.keep_alive;
  return request;
}

async function chat(
  config: ProviderConfig,
  settings: OllamaSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  options: ChatOptions,
): Promise<ChatResult> {
  const context: OllamaCallContext = { provider: OLLAMA_KIND, model: config.model };
  const request = build_ollama_request(config, settings, messages, tools, options.max_tokens);
  let state: OllamaStreamState | undefined;
  try {
    const response = await post_json(settings.url, request, {
      ...context,
      headers: settings.headers,
      signal: options.signal,
      idle_timeout_ms: config.idle_timeout_ms,
    });
    if (!request.stream || /application\/json/i.test(response.content_type)) {
      // A non-streaming answer is one chunk with `done: true`; nothing is streamed.
      const whole = new OllamaStreamState(context);
      whole.push(await response.json());
      return whole.result();
    }
    state = new OllamaStreamState(context, options.on_delta);
    for await (const line of read_ndjson(response.body, { signal: options.signal })) {
      state.push(line);
      if (state.done) break;
    }
    return state.result();
  } catch (error) {
    const failure = to_provider_error(error, { ...context, signal: options.signal });
    throw failure.with_delivered(state?.delivered ?? false);
  }
}

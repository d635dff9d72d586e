import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  NdjsonDecoder,
  type ProviderConfig,
  to_function_tools,
} from '@lich/providers';
import type { OllamaRequest } from './ollama_api.js';
import { OLLAMA_KIND, type OllamaSettings, read_ollama_settings } from './ollama_settings.js';
import { OllamaStreamState } from './ollama_stream_state.js';
import { to_ollama_messages } from './to_ollama_messages.js';

/**
 * Builds a provider for Ollama's native `/api/chat`: one `POST <base>/api/chat` per call, NDJSON
 * when it streams; an `{"error": …}` line after the 200 is a stream error. `base_url` defaults to
 * `http://127.0.0.1:11434`; `OllamaOptions` lists `config.options` (streaming, `think`,
 * `keep_alive`, model options such as `num_ctx`).
 *
 * Contract: that of `create_http_provider` (one request, `ProviderError` only, `delivered`,
 * prompt abort); throws a `ProviderError` of kind `config` for a bad base URL or option.
 */
export function create_ollama_provider(config: ProviderConfig): LLMProvider {
  return create_http_provider(config, {
    kind: OLLAMA_KIND,
    settings: read_ollama_settings(config),
    build_request: build_ollama_request,
    decoder: () => new NdjsonDecoder(),
    stream_state: (context, on_delta) => new OllamaStreamState(context, on_delta),
    // A non-streaming answer is one chunk with `done: true`; nothing is streamed.
    from_json: (answer, context) => {
      const whole = new OllamaStreamState(context);
      whole.push(answer);
      return whole.result();
    },
  });
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
  if (tools.length > 0) request.tools = to_function_tools(tools);
  if (settings.think !== undefined) request.think = settings.think;
  const model_options: Record<string, unknown> = { ...settings.model_options };
  if (config.temperature !== undefined) model_options.temperature = config.temperature;
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) model_options.num_predict = limit;
  if (Object.keys(model_options).length > 0) request.options = model_options;
  if (settings.keep_alive !== undefined) request.keep_alive = settings.keep_alive;
  return request;
}

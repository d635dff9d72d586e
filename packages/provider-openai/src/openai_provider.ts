import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  type ProviderConfig,
  SseParser,
  to_function_tools,
} from '@lich/providers';
import { from_openai_response } from './from_openai_response.js';
import type { OpenAiRequest } from './openai_api.js';
import {
  OPENAI_COMPAT_KIND,
  type OpenAiSettings,
  read_openai_settings,
} from './openai_settings.js';
import { OpenAiStreamState } from './openai_stream_state.js';
import { read_openai_error } from './read_openai_error.js';
import { create_responses_provider } from './responses_provider.js';
import { to_openai_messages } from './to_openai_messages.js';

/**
 * Builds a provider for any OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM,
 * llama.cpp, LM Studio, Ollama's `/v1`…): one `POST <base>/chat/completions` per call, SSE when it
 * streams (a server that answers a streaming request with plain JSON is understood too).
 * `base_url` defaults to `https://api.openai.com/v1`; `api_key`, when set, is sent as
 * `Authorization: Bearer`; `OpenAiOptions` lists `config.options`. The call's `cache_key` (the
 * session id) goes out as `prompt_cache_key` where `config.cache` allows it (by default on
 * api.openai.com), so one session's requests reach the same prompt cache.
 *
 * Contract: that of `create_http_provider` (one request, `ProviderError` only, `delivered`,
 * prompt abort); throws a `ProviderError` of kind `config` for a bad base URL or option.
 */
export function create_openai_provider(config: ProviderConfig): LLMProvider {
  const settings = read_openai_settings(config);
  if (settings.api === 'responses') return create_responses_provider(config, settings);
  return create_http_provider(config, {
    kind: OPENAI_COMPAT_KIND,
    settings,
    build_request: build_openai_request,
    decoder: () => new SseParser(),
    key_envs: ['OPENAI_API_KEY'],
    stream_state: (context, on_delta) => new OpenAiStreamState(context, on_delta),
    from_json: from_openai_response,
    extract_error: (body, text) => {
      const info = read_openai_error(body ?? text);
      return { message: info.provider_message, code: info.code };
    },
  });
}

/** The request body of one call, exported for tests and for wrappers that log it. */
export function build_openai_request(
  config: ProviderConfig,
  settings: OpenAiSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
  cache_key?: string,
): OpenAiRequest {
  const request: OpenAiRequest = {
    model: config.model,
    messages: to_openai_messages(messages, settings.send_reasoning),
    stream: settings.stream,
  };
  if (settings.stream && settings.include_usage) request.stream_options = { include_usage: true };
  if (tools.length > 0) request.tools = to_function_tools(tools);
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) request[settings.max_tokens_field] = limit;
  if (config.temperature !== undefined) request.temperature = config.temperature;
  if (settings.prompt_cache_key && cache_key !== undefined) request.prompt_cache_key = cache_key;
  return { ...request, ...settings.extra_body };
}

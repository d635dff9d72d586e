import type { ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import {
  type LLMProvider,
  type ProviderConfig,
  post_json,
  read_sse,
  to_provider_error,
} from '@lich/providers';
import { from_openai_response } from './from_openai_response.js';
import type { OpenAiRequest } from './openai_api.js';
import type { OpenAiCallContext } from './openai_result.js';
import {
  OPENAI_COMPAT_KIND,
  type OpenAiSettings,
  read_openai_settings,
} from './openai_settings.js';
import { OpenAiStreamState } from './openai_stream_state.js';
import { read_openai_error } from './read_openai_error.js';
import { to_openai_messages, to_openai_tools } from './to_openai_messages.js';

/**
 * Builds a provider for any OpenAI-compatible chat completions API (OpenAI, OpenRouter, vLLM,
 * llama.cpp, LM Studio, Ollama's `/v1`…). `base_url` defaults to `https://api.openai.com/v1`;
 * `api_key`, when set, is sent as `Authorization: Bearer`. See `OpenAiOptions` for
 * `config.options`.
 *
 * Contract:
 * - does no I/O; throws a `ProviderError` of kind `config` for a bad base URL or option;
 * - `chat` makes exactly one `POST <base>/chat/completions`, streaming by default (text and
 *   reasoning deltas go to `on_delta` once each, in order); a server that answers a streaming
 *   request with plain JSON is understood too;
 * - `chat` rejects only with a `ProviderError` (kind `http`, `network`, `timeout`, `stream`,
 *   `parse` or `aborted`) with `delivered` set when a delta had reached `on_delta`, and
 *   promptly with kind `aborted` when `options.signal` fires.
 */
export function create_openai_provider(config: ProviderConfig): LLMProvider {
  const settings = read_openai_settings(config);
  return {
    kind: OPENAI_COMPAT_KIND,
    model: config.model,
    chat: (messages, tools, options = {}) => chat(config, settings, messages, tools, options),
  };
}

/** The request body of one call, exported for tests and for wrappers that log it. */
export function build_openai_request(
  config: ProviderConfig,
  settings: OpenAiSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
): OpenAiRequest {
  const request: OpenAiRequest = {
    model: config.model,
    messages: to_openai_messages(messages, settings.send_reasoning),
    stream: settings.stream,
  };
  if (settings.stream && settings.include_usage) request.stream_options = { include_usage: true };
  if (tools.length > 0) request.tools = to_openai_tools(tools);
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) request[settings.max_tokens_field] = limit;
  if (config.temperature !== undefined) request.temperature = config.temperature;
  return { ...request, ...settings.extra_body };
}

async function chat(
  config: ProviderConfig,
  settings: OpenAiSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  options: ChatOptions,
): Promise<ChatResult> {
  const context: OpenAiCallContext = { provider: OPENAI_COMPAT_KIND, model: config.model };
  const request = build_openai_request(config, settings, messages, tools, options.max_tokens);
  let state: OpenAiStreamState | undefined;
  try {
    const response = await post_json(settings.url, request, {
      ...context,
      headers: settings.headers,
      signal: options.signal,
      idle_timeout_ms: config.idle_timeout_ms,
      extract_error: (body, text) => {
        const info = read_openai_error(body ?? text);
        return { message: info.provider_message, code: info.code };
      },
    });
    if (!request.stream || /application\/json/i.test(response.content_type)) {
      return from_openai_response(await response.json(), context);
    }
    state = new OpenAiStreamState(context, options.on_delta);
    for await (const event of read_sse(response.body, { signal: options.signal })) {
      state.push(event.data);
      if (state.done) break;
    }
    return state.result();
  } catch (error) {
    const failure = to_provider_error(error, { ...context, signal: options.signal });
    throw failure.with_delivered(state?.delivered ?? false);
  }
}

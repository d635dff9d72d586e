import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  type ProviderConfig,
  SseParser,
} from '@lich/providers';
import type { GeminiRequest } from './gemini_api.js';
import {
  GEMINI_KEY_ENVS,
  GEMINI_KIND,
  type GeminiSettings,
  read_gemini_settings,
} from './gemini_settings.js';
import { GeminiStreamState } from './gemini_stream_state.js';
import { read_gemini_error } from './read_gemini_error.js';
import { to_gemini_contents, to_gemini_tools } from './to_gemini_contents.js';

/**
 * Builds a provider for the Gemini API: one `POST <base>/models/<model>:streamGenerateContent
 * ?alt=sse` per call (`:generateContent` when not streaming). `base_url` defaults to
 * `https://generativelanguage.googleapis.com/v1beta`; `api_key` is sent as `x-goog-api-key`;
 * `GeminiOptions` lists `config.options`. Thoughts come back as reasoning, apart from the text,
 * with their signatures, which are sent back on later turns.
 *
 * Contract: that of `create_http_provider` (one request, `ProviderError` only, `delivered`,
 * prompt abort); throws a `ProviderError` of kind `config` for a bad base URL or option.
 */
export function create_gemini_provider(config: ProviderConfig): LLMProvider {
  return create_http_provider(config, {
    kind: GEMINI_KIND,
    settings: read_gemini_settings(config),
    build_request: build_gemini_request,
    streams: (settings) => settings.stream,
    url: (settings, stream) => (stream ? settings.url : settings.whole_url),
    decoder: () => new SseParser(),
    stream_state: (context, on_delta) => new GeminiStreamState(context, on_delta),
    from_json: (body, context) => {
      const whole = new GeminiStreamState(context);
      whole.take(typeof body === 'object' && body !== null ? body : {});
      return whole.result();
    },
    extract_error: (body) => read_gemini_error(body),
    key_envs: GEMINI_KEY_ENVS,
    // an unknown key is a 400 `API_KEY_INVALID`, not a 401
    is_auth_error: (error) =>
      error.status === 401 || error.status === 403 || error.code === 'API_KEY_INVALID',
  });
}

/**
 * The request body of one call. When no tools are offered but the history holds function calls
 * (the loop's last call after the budget ran out), those functions are still declared, with
 * `mode: 'NONE'`, so the history stays valid and the model cannot call them.
 */
export function build_gemini_request(
  config: ProviderConfig,
  settings: GeminiSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
): GeminiRequest {
  const prompt = to_gemini_contents(messages);
  // keys in the order the model reads the prompt (system, tools, contents), so one request's body
  // begins with the previous one's up to the end of its contents: the prefix Gemini's implicit
  // cache matches stays byte-stable from turn to turn
  const request = {} as GeminiRequest;
  if (prompt.system !== undefined) request.systemInstruction = { parts: [{ text: prompt.system }] };
  if (tools.length > 0) request.tools = [{ functionDeclarations: to_gemini_tools(tools) }];
  else {
    const used = new Set<string>();
    for (const message of messages) {
      if (message.role === 'assistant')
        for (const call of message.tool_calls ?? []) used.add(call.name);
    }
    if (used.size > 0) {
      request.tools = [
        {
          functionDeclarations: [...used].map((name) => ({
            name,
            description: 'Not available in this turn.',
          })),
        },
      ];
      request.toolConfig = { functionCallingConfig: { mode: 'NONE' } };
    }
  }
  request.contents = prompt.contents;
  const generation: NonNullable<GeminiRequest['generationConfig']> = {};
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) generation.maxOutputTokens = limit;
  if (config.temperature !== undefined) generation.temperature = config.temperature;
  if (settings.thinking !== undefined) generation.thinkingConfig = settings.thinking;
  if (Object.keys(generation).length > 0) request.generationConfig = generation;
  return { ...request, ...settings.extra_body };
}

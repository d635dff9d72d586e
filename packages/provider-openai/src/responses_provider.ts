import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  type ProviderConfig,
  SseParser,
} from '@lich/providers';
import { OPENAI_COMPAT_KIND, type OpenAiSettings } from './openai_settings.js';
import { read_openai_error } from './read_openai_error.js';
import type { ResponsesRequest } from './responses_api.js';
import { ResponsesStreamState } from './responses_stream_state.js';
import { to_responses_input, to_responses_tools } from './to_responses_input.js';

/**
 * The OpenAI provider on the Responses API (`options.api: 'responses'`): one `POST
 * <base>/responses` per call, SSE when it streams, `store: false` with the reasoning items'
 * encrypted content asked for and passed back across turns.
 *
 * Contract: that of `create_http_provider`.
 */
export function create_responses_provider(
  config: ProviderConfig,
  settings: OpenAiSettings,
): LLMProvider {
  return create_http_provider(config, {
    kind: OPENAI_COMPAT_KIND,
    settings,
    build_request: build_responses_request,
    url: (current) => current.responses_url,
    decoder: () => new SseParser(),
    key_envs: ['OPENAI_API_KEY'],
    stream_state: (context, on_delta) => new ResponsesStreamState(context, on_delta),
    from_json: (body, context) => {
      const whole = new ResponsesStreamState(context);
      whole.take_response(typeof body === 'object' && body !== null ? body : {});
      return whole.result();
    },
    extract_error: (body, text) => {
      const info = read_openai_error(body ?? text);
      return { message: info.provider_message, code: info.code };
    },
  });
}

/** The Responses request body of one call. */
export function build_responses_request(
  config: ProviderConfig,
  settings: OpenAiSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
  cache_key?: string,
): ResponsesRequest {
  const { instructions, input } = to_responses_input(messages);
  const request: ResponsesRequest = {
    model: config.model,
    input,
    stream: settings.stream,
    store: false,
    include: ['reasoning.encrypted_content'],
  };
  if (instructions !== undefined) request.instructions = instructions;
  if (tools.length > 0) request.tools = to_responses_tools(tools);
  const limit = max_tokens ?? config.max_tokens;
  if (limit !== undefined) request.max_output_tokens = limit;
  if (config.temperature !== undefined) request.temperature = config.temperature;
  if (settings.reasoning !== undefined) request.reasoning = settings.reasoning;
  if (settings.prompt_cache_key && cache_key !== undefined) request.prompt_cache_key = cache_key;
  return { ...request, ...settings.extra_body };
}

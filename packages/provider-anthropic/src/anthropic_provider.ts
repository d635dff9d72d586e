import type { ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';
import {
  type LLMProvider,
  type ProviderConfig,
  post_json,
  read_sse,
  to_provider_error,
} from '@lich/providers';
import type { AnthropicRequest } from './anthropic_api.js';
import type { AnthropicCallContext } from './anthropic_result.js';
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_KIND,
  type AnthropicSettings,
  read_anthropic_settings,
} from './anthropic_settings.js';
import { AnthropicStreamState } from './anthropic_stream_state.js';
import { from_anthropic_response } from './from_anthropic_response.js';
import { to_anthropic_messages, to_anthropic_tools } from './to_anthropic_messages.js';

/**
 * Builds a provider for the Anthropic Messages API. `base_url` defaults to
 * `https://api.anthropic.com`; `api_key` is sent as `x-api-key` with `anthropic-version:
 * 2023-06-01`. See `AnthropicOptions` for `config.options` (streaming, `thinking`).
 *
 * Contract:
 * - does no I/O; throws a `ProviderError` of kind `config` for a bad base URL or option;
 * - `chat` makes exactly one `POST <base>/v1/messages`, streaming by default (text and thinking
 *   deltas go to `on_delta` once each, in order); thinking blocks come back in
 *   `message.reasoning_parts` with their signatures and are sent back on later turns;
 * - `chat` rejects only with a `ProviderError` (an `error` event after the 200 included, retryable
 *   for `overloaded_error`), with `delivered` set when a delta had reached `on_delta`, and
 *   promptly with kind `aborted` when `options.signal` fires.
 */
export function create_anthropic_provider(config: ProviderConfig): LLMProvider {
  const settings = read_anthropic_settings(config);
  return {
    kind: ANTHROPIC_KIND,
    model: config.model,
    chat: (messages, tools, options = {}) => chat(config, settings, messages, tools, options),
  };
}

/**
 * The request body of one call. When no tools are offered but the history holds tool calls (the
 * loop's last call after the budget ran out), the API still wants those tools defined: they are
 * declared by name with `tool_choice: { type: 'none' }`, so the model cannot call them.
 */
export function build_anthropic_request(
  config: ProviderConfig,
  settings: AnthropicSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  max_tokens?: number,
): AnthropicRequest {
  const prompt = to_anthropic_messages(messages);
  const thinking = settings.thinking;
  const thinking_on = thinking !== undefined && thinking.type !== 'disabled';
  const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : 0;
  let limit = max_tokens ?? config.max_tokens;
  if (limit === undefined) {
    limit =
      thinking_on && budget >= ANTHROPIC_DEFAULT_MAX_TOKENS
        ? budget + ANTHROPIC_DEFAULT_MAX_TOKENS
        : ANTHROPIC_DEFAULT_MAX_TOKENS;
  }
  const request: AnthropicRequest = {
    model: config.model,
    max_tokens: limit,
    messages: prompt.messages,
    stream: settings.stream,
  };
  if (prompt.system !== undefined) request.system = prompt.system;
  if (tools.length > 0) request.tools = to_anthropic_tools(tools);
  else {
    const used = new Set<string>();
    for (const message of prompt.messages) {
      for (const block of message.content) if (block.type === 'tool_use') used.add(block.name);
    }
    if (used.size > 0) {
      request.tools = [...used].map((name) => ({
        name,
        description: 'Not available in this turn.',
        input_schema: { type: 'object' },
      }));
      request.tool_choice = { type: 'none' };
    }
  }
  if (config.temperature !== undefined && !thinking_on) request.temperature = config.temperature;
  if (thinking !== undefined) request.thinking = thinking;
  return { ...request, ...settings.extra_body };
}

async function chat(
  config: ProviderConfig,
  settings: AnthropicSettings,
  messages: readonly Message[],
  tools: readonly ToolDefinition[],
  options: ChatOptions,
): Promise<ChatResult> {
  const context: AnthropicCallContext = { provider: ANTHROPIC_KIND, model: config.model };
  const request = build_anthropic_request(config, settings, messages, tools, options.max_tokens);
  let state: AnthropicStreamState | undefined;
  try {
    const response = await post_json(settings.url, request, {
      ...context,
      headers: settings.headers,
      signal: options.signal,
      idle_timeout_ms: config.idle_timeout_ms,
    });
    if (!request.stream || /application\/json/i.test(response.content_type)) {
      return from_anthropic_response(await response.json(), context);
    }
    state = new AnthropicStreamState(context, options.on_delta);
    for await (const event of read_sse(response.body, { signal: options.signal })) {
      state.push(event.event, event.data);
      if (state.done) break;
    }
    return state.result();
  } catch (error) {
    const failure = to_provider_error(error, { ...context, signal: options.signal });
    throw failure.with_delivered(state?.delivered ?? false);
  }
}

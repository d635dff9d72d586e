import type { Message, ToolDefinition } from '@lich/core';
import {
  create_http_provider,
  type LLMProvider,
  type ProviderConfig,
  SseParser,
} from '@lich/providers';
import type { AnthropicRequest } from './anthropic_api.js';
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_KIND,
  type AnthropicSettings,
  read_anthropic_settings,
} from './anthropic_settings.js';
import { AnthropicStreamState } from './anthropic_stream_state.js';
import { with_cache_breakpoints } from './cache_breakpoints.js';
import { from_anthropic_response } from './from_anthropic_response.js';
import { to_anthropic_messages, to_anthropic_tools } from './to_anthropic_messages.js';

/**
 * Builds a provider for the Anthropic Messages API: one `POST <base>/v1/messages` per call, SSE
 * when it streams. `base_url` defaults to `https://api.anthropic.com`; `api_key` is sent as
 * `x-api-key` with `anthropic-version: 2023-06-01`; `AnthropicOptions` lists `config.options`
 * (streaming, `thinking`); `config.cache` the prompt caching, on by default (breakpoints on the
 * tools, the system prompt and the newest message, `with_cache_breakpoints`). Thinking blocks come back in `message.reasoning_parts` with their
 * signatures and are sent back on later turns; an `overloaded_error` event after the 200 is a
 * retryable error.
 *
 * Contract: that of `create_http_provider` (one request, `ProviderError` only, `delivered`,
 * prompt abort); throws a `ProviderError` of kind `config` for a bad base URL or option.
 */
export function create_anthropic_provider(config: ProviderConfig): LLMProvider {
  return create_http_provider(config, {
    kind: ANTHROPIC_KIND,
    settings: read_anthropic_settings(config),
    build_request: build_anthropic_request,
    decoder: () => new SseParser(),
    key_envs: ['ANTHROPIC_API_KEY'],
    stream_state: (context, on_delta) => new AnthropicStreamState(context, on_delta),
    from_json: from_anthropic_response,
  });
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
  const body = { ...request, ...settings.extra_body };
  return settings.cache.enabled ? with_cache_breakpoints(body, settings.cache.ttl) : body;
}

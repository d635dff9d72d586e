import { type ProviderConfig, ProviderError } from '@lich/providers';
import { openai_chat_url } from './openai_endpoint.js';
import type { OpenAiReasoningField } from './to_openai_messages.js';

/** The kind this package registers: any OpenAI-compatible chat completions API. */
export const OPENAI_COMPAT_KIND = 'openai_compat';

/**
 * The settings of `ProviderConfig.options` this provider understands. All are optional.
 * - `stream` (default `true`): `false` asks for one JSON answer instead of an event stream;
 * - `include_usage` (default `true`): sends `stream_options: { include_usage: true }` when
 *   streaming; turn it off for a server that refuses `stream_options`;
 * - `send_reasoning`: `reasoning_content` or `reasoning` sends an assistant turn's reasoning back
 *   under that field (DeepSeek-style thinking with tool calls wants it); off by default;
 * - `max_tokens_field`: `max_tokens` or `max_completion_tokens` (the default for api.openai.com,
 *   whose reasoning models refuse `max_tokens`);
 * - `extra_body`: fields merged into every request body (`reasoning_effort`, OpenRouter
 *   `provider` routing, vLLM sampling settings…).
 */
export interface OpenAiOptions {
  stream?: boolean;
  include_usage?: boolean;
  send_reasoning?: OpenAiReasoningField;
  max_tokens_field?: 'max_tokens' | 'max_completion_tokens';
  extra_body?: Record<string, unknown>;
}

/** A config read and checked once, when the provider is built. */
export interface OpenAiSettings {
  url: string;
  headers: Record<string, string>;
  stream: boolean;
  include_usage: boolean;
  send_reasoning: OpenAiReasoningField | undefined;
  max_tokens_field: 'max_tokens' | 'max_completion_tokens';
  extra_body: Record<string, unknown>;
}

/**
 * Reads a `ProviderConfig` into settings. Does no I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an
 * option of the wrong type, naming the option.
 */
export function read_openai_settings(config: ProviderConfig): OpenAiSettings {
  const fail = (text: string) =>
    new ProviderError({
      kind: 'config',
      provider: OPENAI_COMPAT_KIND,
      model: config.model,
      cause: new Error(text),
    });
  const options: OpenAiOptions = (config.options ?? {}) as OpenAiOptions;
  let url: string;
  try {
    url = openai_chat_url(config.base_url);
  } catch {
    throw fail(`base_url is not a URL: '${config.base_url}'`);
  }
  for (const name of ['stream', 'include_usage'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw fail(`options.${name} must be true or false`);
    }
  }
  const reasoning = options.send_reasoning;
  if (reasoning !== undefined && reasoning !== 'reasoning_content' && reasoning !== 'reasoning') {
    throw fail(`options.send_reasoning must be 'reasoning_content' or 'reasoning'`);
  }
  const field = options.max_tokens_field;
  if (field !== undefined && field !== 'max_tokens' && field !== 'max_completion_tokens') {
    throw fail(`options.max_tokens_field must be 'max_tokens' or 'max_completion_tokens'`);
  }
  const extra = options.extra_body;
  if (
    extra !== undefined &&
    (typeof extra !== 'object' || extra === null || Array.isArray(extra))
  ) {
    throw fail('options.extra_body must be an object');
  }
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (config.api_key) headers.authorization = `Bearer ${config.api_key}`;
  Object.assign(headers, config.headers);
  return {
    url,
    headers,
    stream: options.stream ?? true,
    include_usage: options.include_usage ?? true,
    send_reasoning: reasoning,
    max_tokens_field:
      field ??
      (new URL(url).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens'),
    extra_body: extra ?? {},
  };
}

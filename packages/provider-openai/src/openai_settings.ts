import { config_checks, type ProviderConfig } from '@lich/providers';
import { AZURE_DEFAULT_API_VERSION, azure_chat_url, is_azure_base } from './azure_endpoint.js';
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
 *   `provider` routing, vLLM sampling settings…);
 * - `azure`: the base is Azure OpenAI (found from the host or a `/openai/deployments/` path when
 *   left out): the deployment URL with `api-version`, the key sent as `api-key`;
 * - `api_version`: Azure's `api-version` (default `AZURE_OPENAI_API_VERSION`, else 2024-10-21);
 * - `azure_auth`: `'api-key'` (the default) or `'bearer'`, which sends the key as an Entra ID
 *   token (`Authorization: Bearer`, e.g. from `AZURE_OPENAI_AD_TOKEN`);
 * - `api`: `'chat'` (chat completions) or `'responses'` (the Responses API, `POST /responses`,
 *   reasoning items passed back encrypted with `store: false`); the default is `'responses'` for
 *   the model families that want it on api.openai.com (`gpt-5*`, `o1*`, `o3*`, `o4*`, `codex*`)
 *   and `'chat'` everywhere else;
 * - `reasoning`: the Responses API's `reasoning` object, e.g. `{ effort: 'high' }` (a summary is
 *   asked for unless it says otherwise).
 */
export interface OpenAiOptions {
  stream?: boolean;
  include_usage?: boolean;
  send_reasoning?: OpenAiReasoningField;
  max_tokens_field?: 'max_tokens' | 'max_completion_tokens';
  extra_body?: Record<string, unknown>;
  azure?: boolean;
  api_version?: string;
  azure_auth?: 'api-key' | 'bearer';
  api?: 'chat' | 'responses';
  reasoning?: Record<string, unknown>;
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
  api: 'chat' | 'responses';
  /** The Responses API's URL (used when `api` is `'responses'`). */
  responses_url: string;
  reasoning: Record<string, unknown> | undefined;
  /**
   * Whether `prompt_cache_key` is sent (with the call's `cache_key`): `config.cache.enabled`,
   * by default on for api.openai.com only, since other servers may refuse an unknown field.
   */
  prompt_cache_key: boolean;
}

/**
 * Reads a `ProviderConfig` into settings. Does no I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an
 * option of the wrong type, naming the option.
 */
export function read_openai_settings(config: ProviderConfig): OpenAiSettings {
  const check = config_checks(OPENAI_COMPAT_KIND, config);
  const options: OpenAiOptions = (config.options ?? {}) as OpenAiOptions;
  check.boolean('azure', options.azure);
  const azure = options.azure ?? is_azure_base(config.base_url);
  const api_version =
    options.api_version ?? process.env.AZURE_OPENAI_API_VERSION ?? AZURE_DEFAULT_API_VERSION;
  const azure_auth = options.azure_auth ?? 'api-key';
  if (azure_auth !== 'api-key' && azure_auth !== 'bearer') {
    throw check.fail(`options.azure_auth must be 'api-key' or 'bearer'`);
  }
  const url = azure
    ? check.url((base) => azure_chat_url(base ?? '', config.model, api_version))
    : check.url(openai_chat_url);
  check.boolean('stream', options.stream);
  check.boolean('include_usage', options.include_usage);
  const reasoning = options.send_reasoning;
  if (reasoning !== undefined && reasoning !== 'reasoning_content' && reasoning !== 'reasoning') {
    throw check.fail(`options.send_reasoning must be 'reasoning_content' or 'reasoning'`);
  }
  const field = options.max_tokens_field;
  if (field !== undefined && field !== 'max_tokens' && field !== 'max_completion_tokens') {
    throw check.fail(`options.max_tokens_field must be 'max_tokens' or 'max_completion_tokens'`);
  }
  check.object('extra_body', options.extra_body);
  check.object('reasoning', options.reasoning, "e.g. { effort: 'high' }");
  if (options.api !== undefined && options.api !== 'chat' && options.api !== 'responses') {
    throw check.fail(`options.api must be 'chat' or 'responses'`);
  }
  const official = new URL(url).hostname === 'api.openai.com';
  const api =
    options.api ??
    (official && /^(gpt-5|o1|o3|o4|codex)/.test(config.model) ? 'responses' : 'chat');
  const responses_url = azure
    ? `${new URL(url).origin}/openai/v1/responses`
    : url.replace(/\/chat\/completions(?=$|\?)/, '/responses');
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (config.api_key && azure && azure_auth === 'api-key') headers['api-key'] = config.api_key;
  else if (config.api_key) headers.authorization = `Bearer ${config.api_key}`;
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
    extra_body: options.extra_body ?? {},
    api,
    responses_url,
    reasoning:
      options.reasoning === undefined ? undefined : { summary: 'auto', ...options.reasoning },
    prompt_cache_key: config.cache?.enabled ?? official,
  };
}

import { config_checks, type ProviderConfig } from '@lich/providers';
import { anthropic_messages_url } from './anthropic_endpoint.js';
import { EXTENDED_CACHE_TTL_BETA } from './cache_breakpoints.js';

/** The kind this package registers. */
export const ANTHROPIC_KIND = 'anthropic';

/** The API version sent with every request. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `max_tokens` when neither the config nor the call sets one (the API requires a value). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/**
 * The settings of `ProviderConfig.options` this provider understands. All are optional.
 * - `stream` (default `true`): `false` asks for one JSON answer instead of an event stream;
 * - `thinking`: the API's `thinking` object, sent as it is, e.g.
 *   `{ type: 'enabled', budget_tokens: 4096 }`. While it is on, `temperature` is not sent (the API
 *   refuses it) and the default `max_tokens` grows to leave room above the budget;
 * - `extra_body`: fields merged into every request body (`metadata`, `top_k`, `tool_choice`…).
 */
export interface AnthropicOptions {
  stream?: boolean;
  thinking?: Record<string, unknown>;
  extra_body?: Record<string, unknown>;
}

/** A config read and checked once, when the provider is built. */
export interface AnthropicSettings {
  url: string;
  headers: Record<string, string>;
  stream: boolean;
  thinking: Record<string, unknown> | undefined;
  extra_body: Record<string, unknown>;
  /** Prompt caching: on unless `config.cache.enabled` is false; TTL `5m` unless `1h`. */
  cache: { enabled: boolean; ttl: '5m' | '1h' };
}

/**
 * Reads a `ProviderConfig` into settings. Does no I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an
 * option of the wrong type, naming the option. `x-api-key` is sent when `api_key` is set;
 * `config.headers` may add or override headers (e.g. `anthropic-beta`). A `1h` cache TTL adds
 * the `extended-cache-ttl-2025-04-11` beta to `anthropic-beta` (kept with any beta already named).
 */
export function read_anthropic_settings(config: ProviderConfig): AnthropicSettings {
  const check = config_checks(ANTHROPIC_KIND, config);
  const options = (config.options ?? {}) as AnthropicOptions;
  const url = check.url(anthropic_messages_url);
  check.boolean('stream', options.stream);
  check.object('thinking', options.thinking, "e.g. { type: 'enabled', budget_tokens: 4096 }");
  check.object('extra_body', options.extra_body);
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'anthropic-version': ANTHROPIC_VERSION,
  };
  if (config.api_key) headers['x-api-key'] = config.api_key;
  Object.assign(headers, config.headers);
  const ttl = config.cache?.ttl ?? '5m';
  if (ttl !== '5m' && ttl !== '1h') throw check.fail(`cache.ttl must be '5m' or '1h'`);
  const enabled = config.cache?.enabled ?? true;
  if (enabled && ttl === '1h') {
    const betas = (headers['anthropic-beta'] ?? '').split(',').map((beta) => beta.trim());
    if (!betas.includes(EXTENDED_CACHE_TTL_BETA)) {
      headers['anthropic-beta'] = [
        ...betas.filter((beta) => beta !== ''),
        EXTENDED_CACHE_TTL_BETA,
      ].join(',');
    }
  }
  return {
    cache: { enabled, ttl },
    url,
    headers,
    stream: options.stream ?? true,
    thinking: options.thinking,
    extra_body: options.extra_body ?? {},
  };
}

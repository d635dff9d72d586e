import { config_checks, type ProviderConfig } from '@lich/providers';
import { ollama_chat_url } from './ollama_endpoint.js';

/** The kind this package registers. */
export const OLLAMA_KIND = 'ollama';

/**
 * The settings of `ProviderConfig.options` this provider understands. All are optional.
 * - `stream` (default `true`): `false` asks for one JSON answer instead of NDJSON lines;
 * - `think`: `true`/`false`, or a level (`'low'`, `'medium'`, `'high'`) for models that take one;
 *   left out, the model's default applies;
 * - `keep_alive`: how long Ollama keeps the model loaded (`'10m'`, seconds, `-1`);
 * - `model_options`: Ollama model options merged into `options` (`num_ctx`, `top_p`, `seed`…);
 *   `temperature` and `max_tokens` (as `num_predict`) come from the config itself.
 */
export interface OllamaOptions {
  stream?: boolean;
  think?: boolean | 'low' | 'medium' | 'high';
  keep_alive?: string | number;
  model_options?: Record<string, unknown>;
}

/** A config read and checked once, when the provider is built. */
export interface OllamaSettings {
  url: string;
  headers: Record<string, string>;
  stream: boolean;
  think: boolean | string | undefined;
  keep_alive: string | number | undefined;
  model_options: Record<string, unknown>;
}

/**
 * Reads a `ProviderConfig` into settings. Does no I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an
 * option of the wrong type, naming the option. A local Ollama needs no key; when `api_key` is
 * set (a hosted or proxied Ollama) it is sent as `Authorization: Bearer`.
 */
export function read_ollama_settings(config: ProviderConfig): OllamaSettings {
  const check = config_checks(OLLAMA_KIND, config);
  const options = (config.options ?? {}) as OllamaOptions;
  const url = check.url(ollama_chat_url);
  check.boolean('stream', options.stream);
  const think = options.think;
  if (
    think !== undefined &&
    typeof think !== 'boolean' &&
    !['low', 'medium', 'high'].includes(think)
  ) {
    throw check.fail(`options.think must be true, false, 'low', 'medium' or 'high'`);
  }
  const keep_alive = options.keep_alive;
  if (
    keep_alive !== undefined &&
    typeof keep_alive !== 'string' &&
    typeof keep_alive !== 'number'
  ) {
    throw check.fail(`options.keep_alive must be a duration ('10m') or a number of seconds`);
  }
  check.object('model_options', options.model_options);
  const headers: Record<string, string> = { accept: 'application/x-ndjson, application/json' };
  if (config.api_key) headers.authorization = `Bearer ${config.api_key}`;
  Object.assign(headers, config.headers);
  return {
    url,
    headers,
    stream: options.stream ?? true,
    think,
    keep_alive,
    model_options: options.model_options ?? {},
  };
}

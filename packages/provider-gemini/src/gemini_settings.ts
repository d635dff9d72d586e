import { config_checks, type ProviderConfig } from '@lich/providers';
import { gemini_url } from './gemini_endpoint.js';

/** The kind this package registers. */
export const GEMINI_KIND = 'gemini';

/** The variables a Gemini API key is read from, in order (the agent reads them). */
export const GEMINI_KEY_ENVS = ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;

/**
 * The settings of `ProviderConfig.options` this provider understands. All are optional.
 * - `stream` (default `true`): `false` asks `:generateContent` for one JSON answer;
 * - `thinking`: the API's `thinkingConfig`, sent as it is, e.g. `{ thinkingBudget: 2048 }`;
 *   `includeThoughts: true` is added unless it says otherwise, so thoughts come back apart;
 * - `extra_body`: fields merged into every request body (`safetySettings`, …).
 */
export interface GeminiOptions {
  stream?: boolean;
  thinking?: Record<string, unknown>;
  extra_body?: Record<string, unknown>;
}

/** A config read and checked once, when the provider is built. */
export interface GeminiSettings {
  /** The streaming URL; `stream_url` and `whole_url` are the two endpoints. */
  url: string;
  whole_url: string;
  headers: Record<string, string>;
  stream: boolean;
  thinking: Record<string, unknown> | undefined;
  extra_body: Record<string, unknown>;
}

/**
 * Reads a `ProviderConfig` into settings. Does no I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an option
 * of the wrong type, naming the option. The key is sent as `x-goog-api-key`.
 */
export function read_gemini_settings(config: ProviderConfig): GeminiSettings {
  const check = config_checks(GEMINI_KIND, config);
  const options = (config.options ?? {}) as GeminiOptions;
  const url = check.url((base) => gemini_url(base, config.model, true));
  const whole_url = check.url((base) => gemini_url(base, config.model, false));
  check.boolean('stream', options.stream);
  check.object('thinking', options.thinking, 'e.g. { thinkingBudget: 2048 }');
  check.object('extra_body', options.extra_body);
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (config.api_key) headers['x-goog-api-key'] = config.api_key;
  Object.assign(headers, config.headers);
  return {
    url,
    whole_url,
    headers,
    stream: options.stream ?? true,
    thinking:
      options.thinking === undefined ? undefined : { includeThoughts: true, ...options.thinking },
    extra_body: options.extra_body ?? {},
  };
}

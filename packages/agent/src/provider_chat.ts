import { type ChatFn, messages_have_images } from '@lich/core';
import {
  type LLMProvider,
  type ProviderConfig,
  ProviderError,
  type ProviderFactory,
  ProviderRouter,
  type RouterEvent,
} from '@lich/providers';
import { default_key_env, type ProviderEntry } from './config/config_schema.js';

/** How the provider chain is built. */
export interface ProviderChatOptions {
  /** Where `api_key_env` is read from. */
  env: Readonly<Record<string, string | undefined>>;
  /** Hears each retry and each switch to the next provider. */
  on_provider_event?: (event: RouterEvent) => void;
}

/** A config entry as the provider contract takes it: the API key read from its variable. */
export function to_provider_config(
  entry: Readonly<ProviderEntry>,
  env: Readonly<Record<string, string | undefined>>,
): ProviderConfig {
  const key_env = entry.api_key_env ?? default_key_env(entry.kind, env);
  const api_key = key_env ? env[key_env] : undefined;
  const config: ProviderConfig = { kind: entry.kind, model: entry.model };
  if (key_env) config.api_key_env = key_env;
  if (entry.base_url !== undefined) config.base_url = entry.base_url;
  if (api_key) config.api_key = api_key;
  if (entry.headers !== undefined) config.headers = { ...entry.headers };
  if (entry.max_tokens !== undefined) config.max_tokens = entry.max_tokens;
  if (entry.temperature !== undefined) config.temperature = entry.temperature;
  if (entry.idle_timeout_ms !== undefined) config.idle_timeout_ms = entry.idle_timeout_ms;
  if (entry.options !== undefined) config.options = { ...entry.options };
  if (entry.cache !== undefined) config.cache = { ...entry.cache };
  if (entry.vision !== undefined) config.vision = entry.vision;
  return config;
}

/**
 * Warnings for providers of the chain that will talk to their vendor's cloud API (no `base_url`)
 * without a key: the variable they read is unset in `env`. Local and self-hosted servers (a
 * `base_url` given) and keyless kinds (Ollama) are not reported. Pure; never throws.
 */
export function missing_api_keys(
  providers: readonly Readonly<ProviderEntry>[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const warnings: string[] = [];
  for (const entry of providers) {
    if (entry.base_url !== undefined) continue;
    const key_env = entry.api_key_env ?? default_key_env(entry.kind, env);
    if (key_env !== undefined && !env[key_env]) {
      warnings.push(
        `${key_env} is not set: ${entry.kind} (${entry.model}) will refuse the requests`,
      );
    }
  }
  return warnings;
}

/**
 * A factory that builds nothing until the first call, then imports the provider package and
 * delegates to its factory: a run only loads the provider packages its chain uses. A factory
 * error (a bad base URL) surfaces as that call's rejection, which the router fails over from.
 */
export function lazy_factory(kind: string, load: () => Promise<ProviderFactory>): ProviderFactory {
  return (config) => {
    let built: Promise<LLMProvider> | undefined;
    return {
      kind,
      model: config.model,
      async chat(messages, tools, chat_options) {
        built ??= load().then((factory) => factory(config));
        const provider = await built.catch((error: unknown) => {
          built = undefined;
          throw error;
        });
        if (!messages_have_images(messages)) return provider.chat(messages, tools, chat_options);
        // loaded only for a request with a picture: a text-only run never reads this code
        const { explain_image_refusal, fit_images } = await import('./images/fit_images.js');
        const target = {
          kind,
          model: config.model,
          ...(config.vision === undefined ? {} : { vision: config.vision }),
        };
        const fitted = await fit_images(messages, target);
        return provider.chat(fitted, tools, chat_options).catch((error: unknown) => {
          throw explain_image_refusal(error, target);
        });
      },
    };
  };
}

/** The built-in kinds, each loaded on first use. */
export const BUILT_IN_KINDS: Readonly<Record<string, ProviderFactory>> = Object.freeze({
  openai_compat: lazy_factory(
    'openai_compat',
    async () => (await import('@lich/provider-openai')).create_openai_provider,
  ),
  anthropic: lazy_factory(
    'anthropic',
    async () => (await import('@lich/provider-anthropic')).create_anthropic_provider,
  ),
  ollama: lazy_factory(
    'ollama',
    async () => (await import('@lich/provider-ollama')).create_ollama_provider,
  ),
  gemini: lazy_factory(
    'gemini',
    async () => (await import('@lich/provider-gemini')).create_gemini_provider,
  ),
  bedrock: lazy_factory(
    'bedrock',
    async () => (await import('@lich/provider-bedrock')).create_bedrock_provider,
  ),
});

/**
 * A ProviderRouter over `providers` (at least one) with the built-in kinds registered
 * (`openai_compat`, `anthropic`, `ollama`, `gemini`, `bedrock`). Builds nothing and does no I/O until the first call.
 */
export function create_router(
  providers: readonly Readonly<ProviderEntry>[],
  options: ProviderChatOptions,
): ProviderRouter {
  return new ProviderRouter({
    chain: providers.map((entry) => to_provider_config(entry, options.env)),
    kinds: BUILT_IN_KINDS,
    ...(options.on_provider_event ? { on_event: options.on_provider_event } : {}),
  });
}

/**
 * The ChatFn the loop uses: `chat_with_failover` over the configured chain. With an empty chain
 * every call rejects with a `ProviderError` of kind `config` saying what to set.
 */
export function create_provider_chat(
  providers: readonly Readonly<ProviderEntry>[],
  options: ProviderChatOptions,
): ChatFn {
  if (providers.length === 0) {
    return async () => {
      throw new ProviderError({
        kind: 'config',
        provider: 'none',
        model: 'none',
        cause: new Error(
          'no provider configured: set OPENAI_API_KEY or ANTHROPIC_API_KEY, start Ollama, or list providers in the config',
        ),
      });
    };
  }
  return create_router(providers, options).as_chat_fn();
}

import type { ChatOptions, ChatResult, Message, ToolDefinition } from '@lich/core';

/** The settings one provider entry of the failover chain is built from. */
export interface ProviderConfig {
  /** The registered kind: `openai_compat`, `anthropic`, `ollama`, or a contributed one. */
  kind: string;
  model: string;
  /** The API's base URL; each kind has its default. */
  base_url?: string;
  /** The API key itself (already read from `api_key_env` by the caller), when the API needs one. */
  api_key?: string;
  /** The variable the key is read from, named in an authentication error ("set X"). */
  api_key_env?: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** Output token limit per call. */
  max_tokens?: number;
  temperature?: number;
  /** Give up on a stream that sends nothing for this long (default 60 000 ms). */
  idle_timeout_ms?: number;
  /** Kind-specific settings (e.g. Anthropic `thinking`); passed through untouched. */
  options?: Record<string, unknown>;
  /** Prompt caching; each kind says what it does with it (and its default). */
  cache?: PromptCacheConfig;
  /**
   * `false` when the model takes no pictures: a request with one is refused before it is sent,
   * naming the model (the router then tries the next provider). Default: pictures are sent.
   */
  vision?: boolean;
}

/**
 * Prompt caching settings of one provider entry.
 * - `enabled`: whether the provider asks for caching (Anthropic `cache_control` breakpoints,
 *   OpenAI `prompt_cache_key`); each kind has its default;
 * - `ttl`: how long a cached prefix lives, where the API lets the caller choose (Anthropic):
 *   `'5m'` (the default) or `'1h'` (gateways and long sessions, at a higher write price).
 */
export interface PromptCacheConfig {
  enabled?: boolean;
  ttl?: '5m' | '1h';
}

/**
 * A model API Lich can talk to.
 *
 * Contract:
 * - `chat` maps Lich messages and tool definitions to the provider's wire format, streams when it
 *   can (every text or reasoning piece goes to `options.on_delta` once, in order) and maps the
 *   answer back, tool calls, reasoning and usage included;
 * - it rejects with a `ProviderError` naming the provider, the model, the HTTP status and the
 *   provider's own message; it rejects promptly when `options.signal` aborts;
 * - it makes exactly one HTTP request per call: retries and failover are the router's job.
 */
export interface LLMProvider {
  /** The kind, e.g. `anthropic`. */
  readonly kind: string;
  readonly model: string;
  chat(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    options?: ChatOptions,
  ): Promise<ChatResult>;
}

/** Builds a provider of one kind from its config. Must not do I/O. */
export type ProviderFactory = (config: ProviderConfig) => LLMProvider;

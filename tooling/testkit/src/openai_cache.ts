/**
 * OpenAI's automatic prompt caching, as the fake server bills it.
 *
 * The rules followed (OpenAI's prompt caching guide):
 * - nothing to opt into: every prompt of at least 1024 tokens is cached;
 * - a request reads the longest prefix it shares with an earlier prompt routed to the same cache,
 *   counted from 1024 tokens on in steps of 128, and reports it as
 *   `usage.prompt_tokens_details.cached_tokens` (`input_tokens_details` on the Responses API);
 * - requests are routed by `prompt_cache_key` when they send one; the fake keeps one cache per key
 *   (and one for requests without a key);
 * - the prompt is read in the order the API renders it: tools, then the instructions and messages.
 */
import { estimate_tokens } from './split.js';

/** Options of the fake OpenAI cache. */
export interface OpenAICacheOptions {
  /** The shortest prompt cached, in tokens (default 1024). */
  min_tokens?: number;
  /** The step hits are counted in, in tokens (default 128). */
  step_tokens?: number;
  /** How many earlier prompts each cache keeps (default 64). */
  keep?: number;
}

/** The billing of one OpenAI request. */
export interface OpenAIBill {
  /** The whole prompt, cached part included. */
  input_tokens: number;
  cache_read_tokens: number;
}

/** The prompt as the text the cache compares: tools, then instructions, then each message. */
export function openai_prompt_text(body: unknown): string {
  const request = (typeof body === 'object' && body !== null ? body : {}) as Record<
    string,
    unknown
  >;
  const parts: string[] = [];
  for (const tool of Array.isArray(request.tools) ? request.tools : [])
    parts.push(JSON.stringify(tool));
  if (typeof request.instructions === 'string') parts.push(request.instructions);
  const items = Array.isArray(request.messages)
    ? request.messages
    : Array.isArray(request.input)
      ? request.input
      : typeof request.input === 'string'
        ? [request.input]
        : [];
  for (const item of items) parts.push(JSON.stringify(item));
  return parts.join('\n');
}

function common_prefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

/**
 * The automatic prompt caches of one fake server.
 *
 * Contract: `bill` never throws and never mutates the request; it returns the request's billing
 * and remembers its prompt (when long enough) for the next requests of the same key.
 */
export class OpenAICache {
  readonly #caches = new Map<string, string[]>();
  readonly #min_tokens: number;
  readonly #step: number;
  readonly #keep: number;

  constructor(options: OpenAICacheOptions = {}) {
    this.#min_tokens = options.min_tokens ?? 1024;
    this.#step = options.step_tokens ?? 128;
    this.#keep = options.keep ?? 64;
  }

  /** Bills one request body and remembers its prompt. */
  bill(body: unknown): OpenAIBill {
    const text = openai_prompt_text(body);
    const total = estimate_tokens(text);
    const key = (body as { prompt_cache_key?: unknown } | undefined)?.prompt_cache_key;
    const name = typeof key === 'string' ? `key:${key}` : 'none';
    const prompts = this.#caches.get(name) ?? [];
    let shared = 0;
    for (const prompt of prompts) shared = Math.max(shared, common_prefix(prompt, text));
    const shared_tokens = Math.floor(shared / 4);
    const cached =
      shared_tokens < this.#min_tokens
        ? 0
        : this.#min_tokens +
          Math.floor((shared_tokens - this.#min_tokens) / this.#step) * this.#step;
    if (total >= this.#min_tokens) {
      prompts.push(text);
      if (prompts.length > this.#keep) prompts.shift();
      this.#caches.set(name, prompts);
    }
    return { input_tokens: total, cache_read_tokens: Math.min(cached, total) };
  }

  /** Forgets every prompt. */
  clear(): void {
    this.#caches.clear();
  }
}

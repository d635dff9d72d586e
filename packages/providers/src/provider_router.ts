import { setTimeout as wait } from 'node:timers/promises';
import type {
  ChatDelta,
  ChatFn,
  ChatOptions,
  ChatResult,
  Message,
  ToolDefinition,
} from '@lich/core';
import type { LLMProvider, ProviderConfig, ProviderFactory } from './provider.js';
import { type ChainFailure, ProviderChainError } from './provider_chain_error.js';
import { failure_facts, ProviderError } from './provider_error.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retry_delay } from './retry_delay.js';
import type { RouterEvent } from './router_events.js';
import { to_provider_error } from './to_provider_error.js';

export interface ProviderRouterOptions extends Partial<RetryPolicy> {
  /** The providers to try, in order. At least one. */
  chain: readonly ProviderConfig[];
  /** Kinds known from the start; more with `register_kind`. */
  kinds?: Readonly<Record<string, ProviderFactory>>;
  /** Hears each retry and each switch to another provider. A listener that throws is ignored. */
  on_event?: (event: RouterEvent) => void;
  /** The wait between retries (tests inject a fake). Must reject on abort. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * How long a provider that failed is passed over while another provider of the chain has not
   * failed (default `DEFAULT_COOLDOWN_MS`); a longer `retry-after` of its failure wins, up to
   * `MAX_COOLDOWN_MS`. 0 turns the circuit breaker off.
   */
  cooldown_ms?: number;
  /** The clock of the cool-down, in milliseconds (tests inject a fake). Default `Date.now`. */
  now?: () => number;
}

/** How long a failed provider is passed over by default: one minute. */
export const DEFAULT_COOLDOWN_MS = 60_000;

/** The longest cool-down a provider's `retry-after` can ask for: ten minutes. */
export const MAX_COOLDOWN_MS = 600_000;

/**
 * Holds the provider kinds and the failover chain, and makes model calls through them.
 *
 * Providers are built lazily, on first use, from their kind's factory. `chat_with_failover`
 * walks the chain: bounded retries in place for retryable failures, then the next provider.
 */
export class ProviderRouter {
  readonly chain: readonly ProviderConfig[];
  readonly #factories = new Map<string, ProviderFactory>();
  readonly #built: Array<LLMProvider | undefined>;
  readonly #policy: RetryPolicy;
  readonly #on_event: ((event: RouterEvent) => void) | undefined;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #cooldown_ms: number;
  readonly #now: () => number;
  /** Per chain index: until when (by `#now`) the provider is passed over; 0 when it is not. */
  readonly #cooling_until: number[];

  /** Throws (a programmer error) when the chain is empty or a retry setting is negative. */
  constructor(options: ProviderRouterOptions) {
    if (options.chain.length === 0) throw new Error('ProviderRouter: the chain is empty');
    this.chain = Object.freeze([...options.chain]);
    this.#built = new Array(this.chain.length).fill(undefined);
    this.#policy = {
      max_retries: options.max_retries ?? DEFAULT_RETRY_POLICY.max_retries,
      retry_after_cap_ms: options.retry_after_cap_ms ?? DEFAULT_RETRY_POLICY.retry_after_cap_ms,
      backoff_base_ms: options.backoff_base_ms ?? DEFAULT_RETRY_POLICY.backoff_base_ms,
      backoff_max_ms: options.backoff_max_ms ?? DEFAULT_RETRY_POLICY.backoff_max_ms,
    };
    for (const [name, value] of Object.entries(this.#policy)) {
      if (!(value >= 0)) throw new Error(`ProviderRouter: ${name} must be >= 0, got ${value}`);
    }
    this.#on_event = options.on_event;
    this.#sleep = options.sleep ?? ((ms, signal) => wait(ms, undefined, { signal }));
    this.#cooldown_ms = options.cooldown_ms ?? DEFAULT_COOLDOWN_MS;
    if (!(this.#cooldown_ms >= 0)) {
      throw new Error(`ProviderRouter: cooldown_ms must be >= 0, got ${this.#cooldown_ms}`);
    }
    this.#now = options.now ?? Date.now;
    this.#cooling_until = new Array(this.chain.length).fill(0);
    for (const [kind, factory] of Object.entries(options.kinds ?? {})) {
      this.register_kind(kind, factory);
    }
  }

  /** Adds a provider kind. Throws (a programmer error) when the kind is already registered. */
  register_kind(kind: string, factory: ProviderFactory): void {
    if (this.#factories.has(kind)) {
      throw new Error(`ProviderRouter: provider kind '${kind}' is already registered`);
    }
    this.#factories.set(kind, factory);
  }

  /** Whether `kind` is registered. */
  has_kind(kind: string): boolean {
    return this.#factories.has(kind);
  }

  /** The registered kinds, in registration order. */
  kinds(): string[] {
    return [...this.#factories.keys()];
  }

  /**
   * The provider at `index` of the chain, built on first use. Throws a `ProviderError` of kind
   * `config` when its kind is unknown or its factory throws (it is tried again next time).
   */
  provider(index: number): LLMProvider {
    const config = this.chain[index];
    if (config === undefined) throw new RangeError(`ProviderRouter: no provider at ${index}`);
    const existing = this.#built[index];
    if (existing) return existing;
    const factory = this.#factories.get(config.kind);
    if (factory === undefined) {
      const known = this.kinds();
      throw new ProviderError({
        kind: 'config',
        provider: config.kind,
        model: config.model,
        cause: new Error(
          `unknown provider kind '${config.kind}' (known: ${known.length > 0 ? known.join(', ') : 'none'})`,
        ),
      });
    }
    let built: LLMProvider;
    try {
      built = factory(config);
    } catch (error) {
      if (ProviderError.is_instance(error)) throw error;
      throw new ProviderError({
        kind: 'config',
        provider: config.kind,
        model: config.model,
        cause: error instanceof Error ? error : new Error(String(error)),
      });
    }
    this.#built[index] = built;
    return built;
  }

  /**
   * Makes one model call through the chain.
   *
   * Contract:
   * - tries each provider in order; a retryable failure (408/409/429/5xx/529, network, timeout,
   *   a stream cut before anything was delivered; `x-should-retry` decides when sent) is retried
   *   in place up to `max_retries` times after `retry-after` (when at most `retry_after_cap_ms`)
   *   or the deterministic backoff; anything else (400/401/403/404, quota or billing, a parse or
   *   config error, a `retry-after` over the cap) moves to the next provider at once;
   * - a failure after a delta reached `options.on_delta` is thrown at once with `delivered:
   *   true`, neither retried nor failed over, so no text is ever streamed twice — unless the
   *   caller said its output is buffered (`options.restartable`): then `options.on_restart` is
   *   called and the call is retried like an undelivered one;
   * - the caller's abort rejects promptly with a `ProviderError` of kind `aborted` (also during a
   *   backoff wait), and nothing is retried after it;
   * - circuit breaker: a provider that failed (after its retries) is passed over for
   *   `cooldown_ms` (or its longer `retry-after`, up to `MAX_COOLDOWN_MS`) by later calls, which
   *   go straight to the next provider; it is tried again once the cool-down is over, or as a
   *   last resort when every other provider failed in the same call; an answer clears it;
   * - each retry and each switch emits a `RouterEvent`;
   * - when every provider failed it rejects with one error: the provider's own when the chain
   *   has one entry, else a `ProviderChainError` listing each provider, model and why;
   * - the result names the provider and model that answered;
   * - `on_event` hears this call's events too (after the router's `on_event`): parallel runs
   *   sharing one router each hear their own calls' retries and failovers.
   */
  async chat_with_failover(
    messages: readonly Message[],
    tools: readonly ToolDefinition[],
    options: ChatOptions = {},
    on_event?: (event: RouterEvent) => void,
  ): Promise<ChatResult> {
    const emit = (event: RouterEvent) => this.#emit(event, on_event);
    const signal = options.signal;
    const failures: ChainFailure[] = [];
    let previous_index: number | undefined;
    for (const index of this.#order()) {
      const config = this.chain[index] as ProviderConfig;
      const context = { provider: config.kind, model: config.model, signal };
      if (signal?.aborted) throw to_provider_error(signal.reason, context);
      if (previous_index !== undefined) {
        const previous = failures.at(-1)?.error as ProviderError;
        const from = this.chain[previous_index] as ProviderConfig;
        emit({
          type: 'provider_failover',
          from_provider: from.kind,
          from_model: from.model,
          from_index: previous_index,
          to_provider: config.kind,
          to_model: config.model,
          to_index: index,
          reason: previous.message,
          error_kind: previous.kind,
          ...(previous.status === undefined ? {} : { status: previous.status }),
        });
      }
      previous_index = index;
      let provider: LLMProvider;
      try {
        provider = this.provider(index);
      } catch (error) {
        const failure = to_provider_error(error, context);
        failures.push({ error: failure, attempts: 0 });
        this.#cool(index, failure);
        continue;
      }
      for (let retry = 0; ; retry++) {
        let delivered = false;
        const caller_on_delta = options.on_delta;
        const on_delta = caller_on_delta
          ? (delta: ChatDelta) => {
              delivered = true;
              caller_on_delta(delta);
            }
          : undefined;
        try {
          const result = await provider.chat(messages, tools, { ...options, on_delta });
          this.#cooling_until[index] = 0;
          return {
            ...result,
            provider: result.provider ?? config.kind,
            model: result.model ?? config.model,
          };
        } catch (raw) {
          const error = to_provider_error(raw, context);
          if (signal?.aborted || error.kind === 'aborted') {
            throw error.kind === 'aborted' ? error : to_provider_error(signal?.reason, context);
          }
          if (delivered || error.delivered) {
            // shown to somebody: never retried (no text twice); buffered: start it over
            if (options.restartable !== true) throw broke_off(error);
            options.on_restart?.();
          }
          const delay = retry_delay(error, retry, this.#policy, options.restartable === true);
          if (delay === undefined) {
            failures.push({ error, attempts: retry + 1 });
            this.#cool(index, error);
            break;
          }
          emit({
            type: 'provider_retry',
            provider: config.kind,
            model: config.model,
            index,
            attempt: retry + 1,
            max_retries: this.#policy.max_retries,
            delay_ms: delay,
            reason: error.message,
            error_kind: error.kind,
            ...(error.status === undefined ? {} : { status: error.status }),
          });
          try {
            await this.#sleep(delay, signal);
          } catch (abort) {
            throw to_provider_error(abort, context);
          }
          if (signal?.aborted) throw to_provider_error(signal.reason, context);
        }
      }
    }
    const only = failures.length === 1 ? failures[0] : undefined;
    if (only) throw only.error;
    throw new ProviderChainError(failures);
  }

  /** `chat_with_failover` as a `ChatFn`, for the loop; `on_event` hears its calls' events. */
  as_chat_fn(on_event?: (event: RouterEvent) => void): ChatFn {
    return (messages, tools, options) =>
      this.chat_with_failover(messages, tools, options, on_event);
  }

  /**
   * The chain indices in the order this call tries them: the providers not cooling down, in
   * chain order, then those cooling down (a last resort, in chain order).
   */
  #order(): number[] {
    const now = this.#now();
    const ready: number[] = [];
    const cooling: number[] = [];
    for (let index = 0; index < this.chain.length; index++) {
      ((this.#cooling_until[index] as number) > now ? cooling : ready).push(index);
    }
    return [...ready, ...cooling];
  }

  /** Starts the cool-down of the provider at `index` after `error`. */
  #cool(index: number, error: ProviderError): void {
    if (this.#cooldown_ms === 0) return;
    const asked = Math.min(error.retry_after_ms ?? 0, MAX_COOLDOWN_MS);
    this.#cooling_until[index] = this.#now() + Math.max(this.#cooldown_ms, asked);
  }

  #emit(event: RouterEvent, on_call_event: ((event: RouterEvent) => void) | undefined): void {
    for (const listener of [this.#on_event, on_call_event]) {
      try {
        listener?.(event);
      } catch {
        // a listener's failure must not change the call's outcome
      }
    }
  }
}

/** The error of a stream that failed after part of the answer was delivered. */
function broke_off(error: ProviderError): ProviderError {
  return new ProviderError({
    ...failure_facts(error),
    retryable: false,
    delivered: true,
    message: `${error.message} — the answer broke off after part of it was streamed; not retried, so no text is repeated`,
    cause: error,
  });
}

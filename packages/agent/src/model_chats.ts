import type { ChatFn } from '@lich/core';
import type { ProviderRouter, RouterEvent } from '@lich/providers';
import type { ProviderEntry } from './config/config_schema.js';
import { chain_for_model } from './model_chain.js';
import { create_provider_chat, create_router } from './provider_chat.js';

type RouterListener = (event: RouterEvent) => void;

/**
 * The ChatFns of an Agent: one provider router per failover chain a run asked for (`model`),
 * built on first use and shared by every run. Router events reach the agent-wide listener and
 * the listener of the run whose call made them: each run gets a ChatFn that passes its listener
 * with each call, so parallel runs never hear each other's events (no async context: Node 20's
 * AsyncLocalStorage hooks every promise, which a host of 50 streaming sessions pays for per
 * token).
 */
export class ModelChats {
  readonly #providers: readonly Readonly<ProviderEntry>[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #fixed: ChatFn | undefined;
  readonly #on_provider_event: RouterListener | undefined;
  readonly #routers = new Map<string, ProviderRouter>();

  constructor(options: {
    providers: readonly Readonly<ProviderEntry>[];
    env: Readonly<Record<string, string | undefined>>;
    /** Every chain is this ChatFn (tests, library users). */
    chat?: ChatFn;
    on_provider_event?: RouterListener;
  }) {
    this.#providers = options.providers;
    this.#env = options.env;
    this.#fixed = options.chat;
    this.#on_provider_event = options.on_provider_event;
  }

  /** The chain for `model` (`model` or `provider/model`); the configured one when absent. */
  resolve(model?: string): readonly Readonly<ProviderEntry>[] | null {
    if (model === undefined) return this.#providers;
    return chain_for_model(this.#providers, model);
  }

  /**
   * The ChatFn for `model`, whose calls' router events also reach `on_event`. Throws an Error
   * when no provider of the config serves `model`.
   */
  chat_for(model: string | undefined, on_event?: RouterListener): ChatFn {
    if (this.#fixed !== undefined) return this.#fixed;
    const chain = this.resolve(model);
    if (chain === null) throw new Error(`no provider in the config serves '${model}'`);
    // an empty chain: every call rejects saying what to configure
    if (chain.length === 0) return create_provider_chat(chain, { env: this.#env });
    const key = chain.map((entry) => `${entry.kind}/${entry.model}`).join('|');
    let router = this.#routers.get(key);
    if (router === undefined) {
      router = create_router(chain, {
        env: this.#env,
        ...(this.#on_provider_event === undefined
          ? {}
          : { on_provider_event: this.#on_provider_event }),
      });
      this.#routers.set(key, router);
    }
    return router.as_chat_fn(on_event);
  }
}

import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChatFn } from '@lich/core';
import type { RouterEvent } from '@lich/providers';
import type { ProviderEntry } from './config_schema.js';
import { chain_for_model } from './model_chain.js';
import { create_provider_chat } from './provider_chat.js';

/**
 * The ChatFns of an Agent: one per failover chain a run asked for (`model`), built on first use
 * and shared; router events reach the agent-wide listener and the listener of the run whose call
 * made them (runs may be parallel, so the run is found through async context).
 */
export class ModelChats {
  readonly #providers: readonly Readonly<ProviderEntry>[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #fixed: ChatFn | undefined;
  readonly #on_provider_event: ((event: RouterEvent) => void) | undefined;
  readonly #chats = new Map<string, ChatFn>();
  readonly #run_scope = new AsyncLocalStorage<(event: RouterEvent) => void>();

  constructor(options: {
    providers: readonly Readonly<ProviderEntry>[];
    env: Readonly<Record<string, string | undefined>>;
    /** Every chain is this ChatFn (tests, library users). */
    chat?: ChatFn;
    on_provider_event?: (event: RouterEvent) => void;
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

  /** The ChatFn for `model`. Throws an Error when no provider of the config serves it. */
  chat_for(model: string | undefined): ChatFn {
    if (this.#fixed !== undefined) return this.#fixed;
    const chain = this.resolve(model);
    if (chain === null) throw new Error(`no provider in the config serves '${model}'`);
    const key = chain.map((entry) => `${entry.kind}/${entry.model}`).join('|');
    let chat = this.#chats.get(key);
    if (chat === undefined) {
      chat = create_provider_chat(chain, {
        env: this.#env,
        on_provider_event: (event) => {
          this.#on_provider_event?.(event);
          this.#run_scope.getStore()?.(event);
        },
      });
      this.#chats.set(key, chat);
    }
    return chat;
  }

  /** Runs `work` with `listener` hearing the router events of the calls it makes. */
  with_listener<T>(listener: ((event: RouterEvent) => void) | undefined, work: () => T): T {
    return listener === undefined ? work() : this.#run_scope.run(listener, work);
  }
}

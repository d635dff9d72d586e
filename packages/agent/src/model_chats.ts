import type { ChatFn } from '@lich/core';
import type { ProviderRouter, RouterEvent } from '@lich/providers';
import type { ProviderEntry } from './config/config_schema.js';
import { chain_for_model } from './model_chain.js';
import { create_provider_chat, create_router } from './provider_chat.js';
import { configured_secrets, scrub_text, scrubbing_chat } from './secret_scrub.js';

type RouterListener = (event: RouterEvent) => void;

/**
 * The ChatFns of an Agent: one provider router per failover chain a run asked for (`model`),
 * built on first use and shared by every run. Router events reach the agent-wide listener and
 * the listener of the run whose call made them: each run gets a ChatFn that passes its listener
 * with each call, so parallel runs never hear each other's events (no async context: Node 20's
 * AsyncLocalStorage hooks every promise, which a host of 50 streaming sessions pays for per
 * token). A failure's text never holds a configured key or header value: errors and router
 * events are scrubbed (`secret_scrub.ts`) before anything prints or records them.
 */
export class ModelChats {
  readonly #providers: readonly Readonly<ProviderEntry>[];
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #fixed: ChatFn | undefined;
  readonly #on_provider_event: RouterListener | undefined;
  readonly #routers = new Map<string, ProviderRouter>();
  /** The configured keys and header values, scrubbed from every failure's text. */
  readonly #secrets: readonly string[];

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
    this.#secrets = configured_secrets(options.providers, options.env);
    this.#on_provider_event =
      options.on_provider_event === undefined
        ? undefined
        : this.#scrubbed(options.on_provider_event);
  }

  /** A router listener that hears each event with the secrets cut out of its reason. */
  #scrubbed(listener: RouterListener): RouterListener {
    if (this.#secrets.length === 0) return listener;
    return (event) => listener({ ...event, reason: scrub_text(event.reason, this.#secrets) });
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
    return scrubbing_chat(this.#router_chat(chain, on_event), this.#secrets);
  }

  #router_chat(chain: readonly Readonly<ProviderEntry>[], on_event?: RouterListener): ChatFn {
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
    return router.as_chat_fn(on_event === undefined ? undefined : this.#scrubbed(on_event));
  }
}

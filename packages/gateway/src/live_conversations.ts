import type { ApprovalMode, SessionHost } from '@lich/agent';
import type { ApprovalRouter } from './approval_router.js';
import { type GatewayLogEntry, log_warning } from './gateway_log.js';
import { SessionWatch } from './session_watch.js';
import type { Claim, GatewayStore, LoggedMessage } from './storage.js';

/** What this node knows of one conversation it works, while it holds it live. */
export interface LiveConversation {
  key: string;
  watch: SessionWatch | null;
  /** The pump working this conversation, while it runs. */
  pump: Promise<void> | null;
  /** Set by `receive` so a pump about to stop looks once more. */
  wake: boolean;
  /** The run in flight: its turn id once known, and the messages steered into it. */
  in_flight: { turn_id: string | null; steered: LoggedMessage[] } | null;
  last_active: number;
  /** A shared store: the epoch of this node's last claim (its live session is current after it). */
  last_epoch: number;
  /**
   * Whether the last pump ran a prompt: only then does a slot it frees look for more work (a pump
   * that found nothing to do must not set off another look, and so on).
   */
  worked: boolean;
  /** A chunk of this conversation was left unsent here (its sends failed). */
  unsent_left: boolean;
  /** Failed tries of the message at the head of the log, by its seq (this node's count). */
  failures: { seq: number; count: number; lasting: boolean; error: string } | null;
}

/** What the live conversations need. */
export interface LiveConversationsOptions {
  host: SessionHost;
  store: GatewayStore;
  /** Routes the permission requests of the sessions opened; `null`: none can be approved. */
  approvals: ApprovalRouter | null;
  /** Sessions held live; past it the least recently active idle one is closed (default 200). */
  max_conversations?: number;
  /** The permission mode of new sessions (default `default`). */
  approval_mode?: ApprovalMode;
  log: (entry: GatewayLogEntry) => void;
}

/**
 * The conversations a bus holds live, each with the session it runs in.
 *
 * Contract:
 * - `get` gives the conversation of a key, made (idle, with no session) the first time;
 * - `open_session` continues the conversation's session (`session_of` in the log), or creates one
 *   and binds it when there is none or it cannot be loaded; a load waits for the same key's
 *   eviction to finish closing;
 * - `refresh` closes a session another node may have worked since this node's last claim (the
 *   claim's epoch is not the next one), so that it is loaded anew;
 * - `evict` closes the least recently active idle sessions while more than `max_conversations`
 *   are live (their files stay); failures to close are logged, never thrown.
 */
export class LiveConversations {
  readonly #options: LiveConversationsOptions;
  readonly #live = new Map<string, LiveConversation>();
  /** Sessions being closed after eviction: a load of the same key waits for it. */
  readonly #closing = new Map<string, Promise<void>>();

  constructor(options: LiveConversationsOptions) {
    this.#options = options;
  }

  /** Conversations held live now. */
  get size(): number {
    return this.#live.size;
  }

  /** The conversations held live, in the order they were first seen. */
  values(): IterableIterator<LiveConversation> {
    return this.#live.values();
  }

  /** The conversation of `key` when it is held live, without making it. */
  find(key: string): LiveConversation | undefined {
    return this.#live.get(key);
  }

  /** The conversation of `key`, made the first time. */
  get(key: string): LiveConversation {
    let conversation = this.#live.get(key);
    if (conversation === undefined) {
      conversation = {
        key,
        watch: null,
        pump: null,
        wake: false,
        in_flight: null,
        last_active: 0,
        last_epoch: 0,
        worked: false,
        unsent_left: false,
        failures: null,
      };
      this.#live.set(key, conversation);
    }
    return conversation;
  }

  /** Unsubscribes from every session and forgets every conversation (the sessions stay open). */
  clear(): void {
    for (const conversation of this.#live.values()) conversation.watch?.close();
    this.#live.clear();
  }

  /** The conversation's session, loaded or created (and bound in the log) when it has none. */
  async open_session(conversation: LiveConversation, claim: Claim): Promise<string> {
    if (conversation.watch !== null) return conversation.watch.session_id;
    const { host, store, approvals } = this.#options;
    await this.#closing.get(conversation.key);
    const known = await store.log.session_of(conversation.key);
    let session_id: string | null = null;
    if (known !== null) {
      try {
        session_id = (await host.load(known)).session_id;
      } catch (error) {
        this.#warn(conversation.key, `session ${known} could not be loaded, starting anew`, error);
      }
    }
    if (session_id === null) {
      const info = await host.create({
        title: conversation.key,
        approval_mode: this.#options.approval_mode ?? 'default',
      });
      session_id = info.session_id;
      await store.log.bind_session(conversation.key, session_id, claim);
    }
    conversation.watch = await SessionWatch.open(host, session_id, {
      can_approve: approvals !== null,
      hooks: {
        on_permission_request: (request) => approvals?.request(request, conversation.key),
        on_permission_resolved: (request_id) => approvals?.resolved(request_id),
      },
    });
    this.evict();
    return session_id;
  }

  /**
   * A shared store: when another node may have worked the conversation since this node's last
   * claim (the epoch is not the next one), the live session is closed so that it is loaded anew.
   */
  async refresh(conversation: LiveConversation, claim: Claim): Promise<void> {
    const watch = conversation.watch;
    if (watch === null || claim.epoch === conversation.last_epoch + 1) return;
    watch.close();
    conversation.watch = null;
    await this.#options.host
      .close(watch.session_id)
      .catch((error) => this.#warn(conversation.key, 'closing a stale session failed', error));
  }

  /** Closes the least recently active idle sessions while more than the cap are live. */
  evict(): void {
    const cap = this.#options.max_conversations ?? 200;
    const loaded = [...this.#live.values()].filter((c) => c.watch !== null);
    if (loaded.length <= cap) return;
    const idle = loaded
      .filter((c) => c.pump === null && c.in_flight === null)
      .sort((a, b) => a.last_active - b.last_active);
    for (const conversation of idle.slice(0, loaded.length - cap)) {
      const watch = conversation.watch;
      if (watch === null) continue;
      watch.close();
      this.#live.delete(conversation.key);
      const closing = this.#options.host
        .close(watch.session_id)
        .catch((error) => this.#warn(conversation.key, 'closing an evicted session failed', error))
        .finally(() => this.#closing.delete(conversation.key));
      this.#closing.set(conversation.key, closing);
    }
  }

  #warn(conversation_key: string, what: string, error: unknown): void {
    log_warning(this.#options.log, conversation_key, what, error);
  }
}

import type { SessionHost } from '@lich/agent';
import type { Delivery } from './delivery.js';
import type { ConversationMode } from './gateway_bus_options.js';
import { type GatewayLogEntry, log_warning } from './gateway_log.js';
import type { LiveConversation, LiveConversations } from './live_conversations.js';
import { RunFailed, run_prompt } from './run_prompt.js';
import type { Semaphore } from './semaphore.js';
import type { Claim, GatewayStore, LoggedMessage } from './storage.js';

/** Where a bus is in its life: taking messages, answering what it took, cutting runs, done. */
export type BusState = 'open' | 'draining' | 'aborting' | 'closed';

/** What the scheduler needs. */
export interface ConversationSchedulerOptions {
  host: SessionHost;
  store: GatewayStore;
  delivery: Delivery;
  conversations: LiveConversations;
  /** The global cap on runs in flight. */
  runs: Semaphore;
  /** The bus's state now (the scheduler reads it; the bus changes it). */
  state: () => BusState;
  /** The mode of a conversation. */
  mode: (conversation_key: string) => ConversationMode;
  /** `collect`: wait this long after the last message before prompting (default 1500 ms). */
  collect_debounce_ms?: number;
  /** Tries of a message whose run fails before it starts, before it is dead-lettered (default 3). */
  max_attempts?: number;
  /** A shared store: how often to look for conversations with work no node is on (default 1000). */
  poll_ms?: number;
  /** A shared store: a message waiting this long is taken by a node with a free slot (1500 ms). */
  steal_after_ms?: number;
  log: (entry: GatewayLogEntry) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Works the conversations of a bus: one pump per conversation, under the store's claim, running
 * its pending messages strictly in order, different conversations in parallel under the global
 * cap on runs.
 *
 * Contract:
 * - `schedule(key)` makes sure a pump looks at the conversation: it starts one, or tells the one
 *   running to look once more before it stops; it never throws (a failed pump is logged);
 * - a pump that cannot claim the conversation leaves it to the worker that holds it;
 * - with a local store the claim is held while messages wait; with a shared one a run slot is
 *   taken first and the claim covers one run;
 * - a message whose run cannot start is tried again at most `max_attempts` times (once when the
 *   host will always refuse it), then dead-lettered: answered with the error notice, marked done;
 * - with a shared store, `start_polling` follows the store's wake hints and polls for waiting
 *   conversations no node is on, while the node has a free slot; `stop_polling` ends both;
 * - once the state is `aborting` or `closed`, no new run starts and no pump is started again.
 */
export class ConversationScheduler {
  readonly #options: ConversationSchedulerOptions;
  /** A shared store: the poll timer and the wake-hint unsubscribe, while open. */
  #poll: NodeJS.Timeout | null = null;
  #polling = false;
  #unwake: (() => void) | null = null;

  constructor(options: ConversationSchedulerOptions) {
    this.#options = options;
  }

  /** Follows the shared store's wake hints and polls it for waiting conversations. */
  start_polling(): void {
    const { store, runs, state } = this.#options;
    // NOTIFY is only a hint: polling finds what a dead node left or a lost hint missed
    this.#unwake =
      store.on_wake?.((key, kind) => {
        // a new conversation is for a node with a free slot; a busy one leaves it to the others
        if (state() === 'open' && (kind !== 'new' || runs.free)) this.schedule(key);
      }) ?? null;
    this.#poll = setInterval(() => void this.#look_for_work(), this.#options.poll_ms ?? 1000);
    this.#poll.unref();
  }

  /** Stops the polling and the wake hints (nothing when they were not started). */
  stop_polling(): void {
    if (this.#poll !== null) clearInterval(this.#poll);
    this.#poll = null;
    this.#unwake?.();
    this.#unwake = null;
  }

  /** Has a pump look at the conversation of `key`. */
  schedule(key: string): void {
    const { conversations, store, runs } = this.#options;
    const conversation = conversations.get(key);
    conversation.wake = true;
    if (conversation.pump !== null) return;
    conversation.pump = this.#pump(conversation)
      .catch((error) => this.#failed(conversation, error))
      .finally(() => {
        conversation.pump = null;
        if (conversation.wake && !this.#stopping()) {
          this.schedule(key);
        } else {
          conversations.evict();
          // a slot freed with nothing queued here: take what waits on a busy (or dead) node now,
          // not at the next poll
          if (conversation.worked && store.shared === true && runs.free && runs.waiting === 0) {
            void this.#look_for_work();
          }
        }
      });
  }

  #stopping(): boolean {
    const state = this.#options.state();
    return state === 'aborting' || state === 'closed';
  }

  /** Schedules every conversation with work that this node is not already on. */
  async #look_for_work(): Promise<void> {
    const { store, runs, state, conversations } = this.#options;
    // a busy node does not go looking: it would take conversations queued on other nodes
    if (this.#polling || state() !== 'open' || !runs.free) return;
    this.#polling = true;
    try {
      const keys =
        store.waiting_longer_than === undefined
          ? new Set([
              ...(await store.log.pending_conversations()),
              ...(await store.outbox.conversations_with_unsent()),
            ])
          : new Set(await store.waiting_longer_than(this.#options.steal_after_ms ?? 1_500));
      for (const key of keys) {
        if (state() !== 'open' || !runs.free) break;
        if (conversations.find(key)?.pump == null) this.schedule(key);
      }
    } catch (error) {
      log_warning(this.#options.log, undefined, 'looking for waiting conversations failed', error);
    } finally {
      this.#polling = false;
    }
  }

  /**
   * Works a conversation under its claim. With a local store the claim is held while messages
   * wait; with a shared one a run slot is taken first and the claim covers one run, so a node with
   * a free slot can take the conversation's next message. After the claim is released the log is
   * read once more: a message appended by another node while this one was letting go (its own
   * claim then failed) would otherwise wait for the next message.
   */
  async #pump(conversation: LiveConversation): Promise<void> {
    const { store, runs, delivery, conversations } = this.#options;
    const { key } = conversation;
    const shared = store.shared === true;
    conversation.worked = false;
    if (shared) {
      await runs.acquire();
      if (this.#stopping()) {
        runs.release();
        return;
      }
    }
    let claim: Claim | null;
    try {
      claim = await store.lock.claim(key);
    } catch (error) {
      if (shared) runs.release();
      throw error;
    }
    if (claim === null) {
      if (shared) runs.release();
      conversation.wake = false; // another worker has it, and will see the message
      return;
    }
    let look_again = false;
    try {
      if (shared) await conversations.refresh(conversation, claim);
      // a shared store's claim right after this node's own last one: nobody else left chunks
      // unsent, and this node sent all of its own unless a send failed
      if (!shared || claim.epoch !== conversation.last_epoch + 1 || conversation.unsent_left) {
        conversation.unsent_left = false;
        await delivery.send_unsent(key);
      }
      for (;;) {
        if (this.#stopping()) return;
        conversation.wake = false;
        let pending = await store.log.pending(key);
        if (pending.length === 0) {
          if (conversation.wake) continue;
          look_again = true;
          return;
        }
        if (this.#options.mode(key) === 'collect')
          pending = await this.#settle_collect(conversation);
        const finished = await this.#run(conversation, claim, pending, shared);
        conversation.worked = true;
        if (!finished) return;
        if (shared) {
          look_again = true;
          return;
        }
      }
    } finally {
      await store.lock.release(claim);
      if (shared) {
        conversation.last_epoch = claim.epoch;
        runs.release();
      }
      if (!this.#stopping()) {
        const waiting = (await store.log.pending(key)).length > 0;
        // a pump that failed is retried only when a message came meanwhile (or by the poll)
        conversation.wake = look_again
          ? conversation.wake || waiting
          : conversation.wake && waiting;
      }
    }
  }

  /** `collect`: waits until no message came for the debounce time; resolves all pending. */
  async #settle_collect(conversation: LiveConversation): Promise<LoggedMessage[]> {
    const debounce = this.#options.collect_debounce_ms ?? 1500;
    for (;;) {
      const pending = await this.#options.store.log.pending(conversation.key);
      const last = pending.at(-1)?.logged_at ?? 0;
      const wait = last + debounce - Date.now();
      if (wait <= 0 || this.#options.state() !== 'open') return pending;
      await sleep(wait);
    }
  }

  /** Runs one prompt for `batch` (its first message, or all of them in `collect`). */
  async #run(
    conversation: LiveConversation,
    claim: Claim,
    pending: LoggedMessage[],
    slot_held: boolean,
  ): Promise<boolean> {
    const { host, delivery, runs, conversations } = this.#options;
    const batch =
      this.#options.mode(conversation.key) === 'collect' ? pending : pending.slice(0, 1);
    const tried = conversation.failures;
    if (tried !== null && tried.seq === batch[0]?.seq) {
      if (tried.lasting || tried.count >= (this.#options.max_attempts ?? 3)) {
        await this.#dead_letter(conversation, claim, batch, tried);
        return true;
      }
    }
    try {
      await conversations.open_session(conversation, claim);
    } catch (error) {
      throw new RunFailed(error, batch);
    }
    const watch = conversation.watch;
    if (watch === null) throw new Error(`no session for ${conversation.key}`);
    if (!slot_held) await runs.acquire();
    try {
      if (this.#stopping()) return false;
      return await run_prompt({ host, delivery, conversation, watch, claim, batch });
    } finally {
      if (!slot_held) runs.release();
    }
  }

  /**
   * A pump that threw: a run that could not start counts against its message (the next pump
   * dead-letters it once it may not be tried more); anything else is logged.
   */
  #failed(conversation: LiveConversation, error: unknown): void {
    if (!(error instanceof RunFailed)) {
      log_warning(this.#options.log, conversation.key, 'the conversation stopped', error);
      return;
    }
    const seq = error.batch[0]?.seq ?? 0;
    const before = conversation.failures;
    const count = before !== null && before.seq === seq ? before.count + 1 : 1;
    conversation.failures = { seq, count, lasting: error.lasting, error: error.message };
    log_warning(
      this.#options.log,
      conversation.key,
      `message ${seq} could not be run (try ${count})`,
      error,
    );
    // looked at again at once: the next pump runs it again, or dead-letters it
    if (this.#options.state() === 'open') conversation.wake = true;
  }

  /** Answers `batch` with the error notice and marks it done: it will never be run. */
  async #dead_letter(
    conversation: LiveConversation,
    claim: Claim,
    batch: LoggedMessage[],
    failures: NonNullable<LiveConversation['failures']>,
  ): Promise<void> {
    this.#options.log({
      level: 'warn',
      message: `message ${failures.seq} dead-lettered after ${failures.count} tr${failures.count === 1 ? 'y' : 'ies'}: ${failures.error}`,
      conversation_key: conversation.key,
    });
    conversation.failures = null;
    await this.#options.delivery.answer(claim, batch, {
      turn_id: '',
      stop_reason: 'error',
      final: null,
      error: failures.error,
      usage: { input_tokens: 0, output_tokens: 0 },
      turns_used: 0,
    });
  }
}

import { type GatewayAdapter, type Settlement, target_of } from './adapter.js';
import type { BudgetStopped } from './budget_notice.js';
import { chunk_reply } from './chunk_reply.js';
import { type GatewayLogEntry, log_warning } from './gateway_log.js';
import type { GatewayTexts } from './gateway_texts.js';
import { type InboundMessage, sender_key } from './inbound_message.js';
import type { TurnEnd } from './session_watch.js';
import {
  type Claim,
  type GatewayStore,
  type LoggedMessage,
  type OutboxEntry,
  outbox_key,
} from './storage.js';

/** How replies are delivered. */
export interface DeliveryOptions {
  store: GatewayStore;
  adapter: GatewayAdapter;
  texts: GatewayTexts;
  /** Attempts per chunk send (default 4), with doubling backoff from `send_backoff_ms` (250). */
  send_attempts?: number;
  send_backoff_ms?: number;
  log: (entry: GatewayLogEntry) => void;
  /** Hears that a chunk of a conversation was left unsent (its sends kept failing). */
  on_unsent?: (conversation_key: string) => void;
  /** Hears that a spending limit stopped a run (the owner is told, `BudgetNotice`). */
  on_budget_stop?: (stop: BudgetStopped) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Replies, from a finished run to the platform: chunked at the adapter's limit, written to the
 * outbox with the messages they answer marked done (one step where the store can), then sent,
 * each chunk retried with backoff and marked sent. A chunk that cannot be sent stays in the outbox
 * for the next claim or start.
 */
export class Delivery {
  readonly #options: DeliveryOptions;

  constructor(options: DeliveryOptions) {
    this.#options = options;
  }

  /**
   * Writes the reply of `end` for the messages `taken` (done up to the last of an unbroken run of
   * seqs: a gap, a steer the host refused, is run after), marks them done, sends it and settles
   * them with the adapter. A failed run is answered with the error notice.
   */
  async answer(claim: Claim, taken: LoggedMessage[], end: TurnEnd): Promise<void> {
    const { store, adapter, texts } = this.#options;
    const sorted = [...taken].sort((a, b) => a.seq - b.seq);
    const answered = sorted.filter((logged, index) => logged.seq - index === sorted[0]?.seq);
    const last = answered.at(-1);
    if (last === undefined) return;
    const failed = end.stop_reason === 'error';
    if (failed)
      log_warning(
        this.#options.log,
        claim.conversation_key,
        'the run failed',
        end.error ?? 'no message',
      );
    const over_budget = end.stop_reason === 'budget';
    // the sender gets one polite line; the owner reads which limit it was in the log, and in a
    // direct message once per budget window
    if (over_budget) {
      log_warning(
        this.#options.log,
        claim.conversation_key,
        'a budget stopped the run',
        end.budget ?? '',
      );
      this.#options.on_budget_stop?.({
        conversation_key: claim.conversation_key,
        sender: sender_key(last.message),
        scope: end.budget_scope,
        reason: end.budget ?? 'a spending limit',
      });
    }
    const text = failed
      ? texts.error_reply
      : over_budget
        ? texts.budget_reply
        : (end.final ?? '').trim();
    const chunks = chunk_reply(text, adapter.max_message_chars);
    const entries: OutboxEntry[] = chunks.map((chunk, index) => ({
      key: outbox_key(claim.conversation_key, last.seq, index),
      target: target_of(last.message),
      seq: last.seq,
      reply_to: last.message.platform_message_id,
      answers: answered.map((m) => m.message.platform_message_id),
      index,
      count: chunks.length,
      text: chunk,
    }));
    if (store.answer !== undefined) await store.answer(entries, last.seq, claim);
    else {
      await store.outbox.put(entries, claim);
      await store.log.mark_done(claim.conversation_key, last.seq, claim);
    }
    for (const entry of entries) await this.send(entry);
    const reply = entries.length === 0 ? null : { key: entries[0]?.key ?? '', text, chunks };
    const outcome: Settlement['outcome'] = failed ? 'failed' : reply ? 'answered' : 'no_answer';
    for (const logged of answered) {
      adapter.settled?.({ message: logged.message, outcome, reply, stop_reason: end.stop_reason });
    }
  }

  /** Sends what the outbox holds unsent for a conversation. */
  async send_unsent(conversation_key: string): Promise<void> {
    for (const entry of await this.#options.store.outbox.unsent(conversation_key)) {
      await this.send(entry);
    }
  }

  /** Sends one chunk, retried with backoff; marks it sent, or leaves it for later. */
  async send(entry: OutboxEntry): Promise<void> {
    const attempts = this.#options.send_attempts ?? 4;
    let delay = this.#options.send_backoff_ms ?? 250;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.#options.adapter.send(entry);
        await this.#options.store.outbox.mark_sent(entry.key);
        return;
      } catch (error) {
        if (attempt >= attempts) {
          // left unsent in the outbox: the next claim (or start) sends it
          this.#options.on_unsent?.(entry.target.conversation_key);
          log_warning(
            this.#options.log,
            entry.target.conversation_key,
            `chunk ${entry.key} not sent`,
            error,
          );
          return;
        }
        await sleep(delay);
        delay *= 2;
      }
    }
  }

  /** Shows "typing" in the chat of `message` while a run works; returns what stops it. */
  typing(message: InboundMessage | undefined): () => void {
    const { adapter } = this.#options;
    const every = adapter.typing_interval_ms;
    const typing = adapter.typing?.bind(adapter);
    if (message === undefined || every === undefined || typing === undefined) return () => {};
    const target = target_of(message);
    const tick = () => void typing(target).catch(() => undefined);
    tick();
    const timer = setInterval(tick, every);
    return () => clearInterval(timer);
  }
}

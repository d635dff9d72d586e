import type { SessionHost } from '@lich/agent';
import type { GatewayAdapter, GatewayIngress, IngestResult } from './adapter.js';
import { ApprovalRouter } from './approval_router.js';
import { BudgetNotice } from './budget_notice.js';
import { type BusState, ConversationScheduler } from './conversation_scheduler.js';
import { Delivery } from './delivery.js';
import type { ConversationMode, GatewayBusOptions } from './gateway_bus_options.js';
import type { GatewayLogEntry } from './gateway_log.js';
import { DEFAULT_TEXTS, type GatewayTexts } from './gateway_texts.js';
import { InboundGate } from './inbound_gate.js';
import type { InboundMessage } from './inbound_message.js';
import { LiveConversations } from './live_conversations.js';
import { memory_store } from './memory_store.js';
import { prompt_text } from './prompt_text.js';
import { Semaphore } from './semaphore.js';
import type { GatewayStore } from './storage.js';
import { take_attachments } from './take_attachments.js';
import { without_nul } from './without_nul.js';

export type { ConversationMode, GatewayBusOptions } from './gateway_bus_options.js';
export type { GatewayLogEntry } from './gateway_log.js';

/**
 * Carries platform messages to a `SessionHost` and the answers back, one conversation at a time.
 *
 * Contract:
 * - `receive` drops bots, redeliveries (`dedupe_ttl_ms`, and the log's own idempotence), what the
 *   access policy refuses, and what goes over a sender's rate limit ("slow down" said once); it
 *   resolves `accepted` only once the message is in the conversation log;
 * - each conversation is one session (`conversation_key` → session id in the log), so a restarted
 *   bus continues it; messages of a conversation are answered strictly in order; different
 *   conversations run in parallel, at most `max_concurrency` runs at once;
 * - a message arriving while its conversation runs is, by mode: `queue` run after; `steer` given
 *   to the run (`SessionHost.steer`), answered by that run's reply, or run after when the run
 *   ended before taking it; `collect` merged with the others waiting into one prompt once
 *   `collect_debounce_ms` passed with no new message;
 * - a reply is chunked at the adapter's limit, written to the outbox, the messages it answers are
 *   marked done, then the chunks are sent (retried with backoff) and marked sent; a restart sends
 *   what was not;
 * - at most `max_conversations` sessions are held live: the least recently active idle one is
 *   closed (its file stays; its next message loads it again);
 * - a message whose run cannot start (the host refuses it, no session opens) is tried again at
 *   most `max_attempts` times, then dead-lettered: answered with the error notice and marked done,
 *   so a poison message never blocks its conversation;
 * - `drain` stops intake, lets every accepted message be answered until its deadline, then aborts
 *   the runs left; a message whose run was aborted stays in the log for the next start.
 *
 * Its parts: `InboundGate` lets messages in, `ConversationScheduler` works the conversations
 * (`LiveConversations` holds their sessions, `run_prompt` runs one prompt) and `Delivery` sends
 * the replies.
 */
export class GatewayBus implements GatewayIngress {
  readonly host: SessionHost;
  readonly adapter: GatewayAdapter;
  readonly store: GatewayStore;
  readonly texts: GatewayTexts;
  readonly #options: GatewayBusOptions;
  readonly #gate: InboundGate;
  readonly #runs: Semaphore;
  readonly #live: LiveConversations;
  readonly #scheduler: ConversationScheduler;
  readonly #log: (entry: GatewayLogEntry) => void;
  #state: BusState = 'open';
  /** Aborted on close: downloads of attachments still under way stop. */
  readonly #intake = new AbortController();
  /** Warnings of the access policy (allow_all…), for the runner to print. */
  readonly warnings: readonly string[];

  constructor(options: GatewayBusOptions) {
    this.#options = options;
    this.host = options.host;
    this.adapter = options.adapter;
    this.store = options.store ?? memory_store();
    this.texts = { ...DEFAULT_TEXTS, ...options.texts };
    this.#runs = new Semaphore(options.max_concurrency ?? 8);
    this.#log = options.on_log ?? (() => undefined);
    const approvals =
      options.approvals_to === undefined
        ? null
        : new ApprovalRouter({
            owner: options.approvals_to,
            host: options.host,
            adapter: options.adapter,
            texts: this.texts,
          });
    this.#gate = new InboundGate({
      adapter: options.adapter,
      access: options.access,
      ...(options.pairing === undefined ? {} : { pairing: options.pairing }),
      ...(options.rate_limit === undefined ? {} : { rate_limit: options.rate_limit }),
      ...(options.dedupe_ttl_ms === undefined ? {} : { dedupe_ttl_ms: options.dedupe_ttl_ms }),
      approvals,
      texts: this.texts,
      log: this.#log,
    });
    this.warnings = this.#gate.warnings;
    this.#live = new LiveConversations({
      host: options.host,
      store: this.store,
      approvals,
      ...(options.max_conversations === undefined
        ? {}
        : { max_conversations: options.max_conversations }),
      ...(options.approval_mode === undefined ? {} : { approval_mode: options.approval_mode }),
      log: this.#log,
    });
    // on several nodes, the store says which one tells the owner
    const claim_notice = this.store.claim_notice?.bind(this.store);
    const budget_notice = new BudgetNotice({
      adapter: options.adapter,
      owner: options.owner_to ?? options.approvals_to,
      texts: this.texts,
      log: this.#log,
      ...(claim_notice === undefined ? {} : { claim: claim_notice }),
    });
    const delivery = new Delivery({
      store: this.store,
      adapter: options.adapter,
      texts: this.texts,
      ...(options.send_attempts === undefined ? {} : { send_attempts: options.send_attempts }),
      ...(options.send_backoff_ms === undefined
        ? {}
        : { send_backoff_ms: options.send_backoff_ms }),
      log: this.#log,
      on_budget_stop: (stop) => budget_notice.stopped(stop),
      on_unsent: (key) => {
        const conversation = this.#live.find(key);
        if (conversation !== undefined) conversation.unsent_left = true;
      },
    });
    this.#scheduler = new ConversationScheduler({
      host: options.host,
      store: this.store,
      delivery,
      conversations: this.#live,
      runs: this.#runs,
      state: () => this.#state,
      mode: (key) => this.#mode(key),
      ...(options.collect_debounce_ms === undefined
        ? {}
        : { collect_debounce_ms: options.collect_debounce_ms }),
      ...(options.max_attempts === undefined ? {} : { max_attempts: options.max_attempts }),
      ...(options.poll_ms === undefined ? {} : { poll_ms: options.poll_ms }),
      ...(options.steal_after_ms === undefined ? {} : { steal_after_ms: options.steal_after_ms }),
      log: this.#log,
    });
  }

  /** Conversations held live now. */
  get live_conversations(): number {
    return this.#live.size;
  }

  /** How many runs hold a slot of the global cap now (started and not yet settled). */
  get runs_in_flight(): number {
    return this.#runs.held;
  }

  /** Sends what a previous process left unsent, and resumes the conversations it left pending. */
  async start(): Promise<void> {
    const keys = new Set([
      ...(await this.store.outbox.conversations_with_unsent()),
      ...(await this.store.log.pending_conversations()),
    ]);
    for (const key of keys) this.#scheduler.schedule(key);
    if (keys.size > 0)
      this.#log({ level: 'info', message: `resuming ${keys.size} conversation(s)` });
    if (this.store.shared === true && this.#state === 'open') this.#scheduler.start_polling();
  }

  async receive(inbound: InboundMessage): Promise<IngestResult> {
    if (this.#state !== 'open') return { status: 'closed' };
    // a U+0000 would take a different path in each store: stripped at the door (X13)
    const checked = without_nul(inbound);
    const verdict = await this.#gate.check(checked);
    if (verdict.status !== 'pass') return verdict;
    // pictures are downloaded only for a message let in: a stranger cannot make the bot fetch
    const taken = await take_attachments(checked, {
      adapter: this.adapter,
      texts: this.texts,
      log: this.#log,
      signal: this.#intake.signal,
    });
    if ('refused' in taken) return { status: 'invalid', reason: taken.refused };
    const { message } = taken;
    let appended: Awaited<ReturnType<GatewayStore['log']['append']>>;
    try {
      appended = await this.store.log.append(message);
    } catch (error) {
      verdict.forget(); // not taken: a redelivery must get in
      throw error;
    }
    if (!appended.appended) return { status: 'duplicate' };
    const conversation = this.#live.get(message.conversation_key);
    conversation.last_active = Date.now();
    const in_flight = conversation.in_flight;
    if (
      this.#mode(message.conversation_key) === 'steer' &&
      // steering carries text only: a picture waits for its own turn
      (message.images === undefined || message.images.length === 0) &&
      in_flight !== null &&
      in_flight.turn_id !== null &&
      conversation.watch !== null &&
      !conversation.watch.has_ended(in_flight.turn_id)
    ) {
      in_flight.steered.push({ seq: appended.seq, message, logged_at: Date.now() });
      await this.host.steer(conversation.watch.session_id, prompt_text([message])).catch(() => {
        in_flight.steered.pop(); // not steered: the pump runs it after
      });
    }
    // a shared store's conversation another node works stays there (that node was hinted)
    if (appended.elsewhere !== true) this.#scheduler.schedule(message.conversation_key);
    return { status: 'accepted', seq: appended.seq };
  }

  async greet(message: InboundMessage): Promise<boolean> {
    if (this.#state !== 'open') return false;
    return this.#gate.greet(message);
  }

  /**
   * Stops taking messages and answers what was accepted, for up to `deadline_ms`; then aborts the
   * runs left (their messages stay in the log). Resolves with how many conversations were cut.
   */
  async drain(options: { deadline_ms?: number } = {}): Promise<{ aborted: number }> {
    if (this.#state === 'open') this.#state = 'draining';
    this.#scheduler.stop_polling();
    const pumps = () => [...this.#live.values()].flatMap((c) => (c.pump === null ? [] : [c.pump]));
    const deadline = options.deadline_ms ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timed_out = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), deadline);
    });
    for (;;) {
      const running = pumps();
      if (running.length === 0) break;
      if (await Promise.race([Promise.all(running).then(() => false), timed_out])) break;
    }
    clearTimeout(timer);
    const cut = [...this.#live.values()].filter((c) => c.pump !== null);
    this.#state = 'aborting';
    for (const conversation of cut) {
      if (conversation.watch !== null) {
        await this.host.abort(conversation.watch.session_id).catch(() => false);
      }
    }
    // a run the abort did not end (a host that lost it) must not hold the drain forever
    const grace = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), 5_000);
    });
    if (await Promise.race([Promise.all(pumps()).then(() => false), grace])) {
      for (const conversation of this.#live.values()) conversation.watch?.close();
      await Promise.all(pumps());
    }
    clearTimeout(timer);
    this.#state = 'closed';
    return { aborted: cut.length };
  }

  /** Unsubscribes from every session and closes the store (after `drain`). */
  async close(): Promise<void> {
    this.#state = 'closed';
    this.#intake.abort();
    this.#scheduler.stop_polling();
    this.#live.clear();
    await this.store.close();
  }

  #mode(conversation_key: string): ConversationMode {
    return this.#options.mode_of?.(conversation_key) ?? this.#options.mode ?? 'queue';
  }
}

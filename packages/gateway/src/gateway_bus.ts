import { type SessionHost, SessionHostError } from '@lich/agent';
import type { GatewayAdapter, GatewayIngress, IngestResult } from './adapter.js';
import { ApprovalRouter } from './approval_router.js';
import { BudgetNotice } from './budget_notice.js';
import { command_prompt } from './command_prompt.js';
import { Delivery } from './delivery.js';
import type { ConversationMode, GatewayBusOptions } from './gateway_bus_options.js';
import type { GatewayLogEntry } from './gateway_log.js';
import { DEFAULT_TEXTS, type GatewayTexts } from './gateway_texts.js';
import { InboundGate } from './inbound_gate.js';
import { type InboundMessage, sender_key } from './inbound_message.js';
import { memory_store } from './memory_store.js';
import { prompt_text } from './prompt_text.js';
import { Semaphore } from './semaphore.js';
import { SessionWatch } from './session_watch.js';
import type { Claim, GatewayStore, LoggedMessage } from './storage.js';
import { take_attachments } from './take_attachments.js';
import { without_nul } from './without_nul.js';

export type { ConversationMode, GatewayBusOptions } from './gateway_bus_options.js';
export type { GatewayLogEntry } from './gateway_log.js';

interface LiveConversation {
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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A run that could not start, with the messages it was for. */
class RunFailed extends Error {
  readonly batch: LoggedMessage[];
  /** The host refuses such input every time: no use trying again. */
  readonly lasting: boolean;

  constructor(cause: unknown, batch: LoggedMessage[]) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'RunFailed';
    this.batch = batch;
    this.lasting = SessionHostError.is_instance(cause) && cause.code === 'invalid_argument';
  }
}

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
 */
export class GatewayBus implements GatewayIngress {
  readonly host: SessionHost;
  readonly adapter: GatewayAdapter;
  readonly store: GatewayStore;
  readonly texts: GatewayTexts;
  readonly #options: GatewayBusOptions;
  readonly #gate: InboundGate;
  readonly #delivery: Delivery;
  readonly #runs: Semaphore;
  readonly #live = new Map<string, LiveConversation>();
  /** Sessions being closed after eviction: a load of the same key waits for it. */
  readonly #closing = new Map<string, Promise<void>>();
  readonly #approvals: ApprovalRouter | null;
  readonly #log: (entry: GatewayLogEntry) => void;
  #state: 'open' | 'draining' | 'aborting' | 'closed' = 'open';
  /** A shared store: the poll timer and the wake-hint unsubscribe, while open. */
  #poll: NodeJS.Timeout | null = null;
  #polling = false;
  #unwake: (() => void) | null = null;
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
    this.#approvals =
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
      approvals: this.#approvals,
      texts: this.texts,
      log: this.#log,
    });
    this.warnings = this.#gate.warnings;
    const budget_notice = new BudgetNotice({
      adapter: options.adapter,
      owner: options.owner_to ?? options.approvals_to,
      texts: this.texts,
      log: this.#log,
    });
    this.#delivery = new Delivery({
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
        const conversation = this.#live.get(key);
        if (conversation !== undefined) conversation.unsent_left = true;
      },
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
    for (const key of keys) this.#schedule(key);
    if (keys.size > 0)
      this.#log({ level: 'info', message: `resuming ${keys.size} conversation(s)` });
    if (this.store.shared === true && this.#state === 'open') {
      // NOTIFY is only a hint: polling finds what a dead node left or a lost hint missed
      this.#unwake =
        this.store.on_wake?.((key, kind) => {
          // a new conversation is for a node with a free slot; a busy one leaves it to the others
          if (this.#state === 'open' && (kind !== 'new' || this.#runs.free)) this.#schedule(key);
        }) ?? null;
      this.#poll = setInterval(() => void this.#look_for_work(), this.#options.poll_ms ?? 1000);
      this.#poll.unref();
    }
  }

  /** Schedules every conversation with work that this node is not already on. */
  async #look_for_work(): Promise<void> {
    // a busy node does not go looking: it would take conversations queued on other nodes
    if (this.#polling || this.#state !== 'open' || !this.#runs.free) return;
    this.#polling = true;
    try {
      const keys =
        this.store.waiting_longer_than === undefined
          ? new Set([
              ...(await this.store.log.pending_conversations()),
              ...(await this.store.outbox.conversations_with_unsent()),
            ])
          : new Set(await this.store.waiting_longer_than(this.#options.steal_after_ms ?? 1_500));
      for (const key of keys) {
        if (this.#state !== 'open' || !this.#runs.free) break;
        if (this.#live.get(key)?.pump == null) this.#schedule(key);
      }
    } catch (error) {
      this.#warn(undefined, 'looking for waiting conversations failed', error);
    } finally {
      this.#polling = false;
    }
  }

  #stop_polling(): void {
    if (this.#poll !== null) clearInterval(this.#poll);
    this.#poll = null;
    this.#unwake?.();
    this.#unwake = null;
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
    const conversation = this.#conversation(message.conversation_key);
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
    if (appended.elsewhere !== true) this.#schedule(message.conversation_key);
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
    this.#stop_polling();
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
    this.#stop_polling();
    for (const conversation of this.#live.values()) conversation.watch?.close();
    this.#live.clear();
    await this.store.close();
  }

  #mode(conversation_key: string): ConversationMode {
    return this.#options.mode_of?.(conversation_key) ?? this.#options.mode ?? 'queue';
  }

  #warn(conversation_key: string | undefined, what: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.#log({ level: 'warn', message: `${what}: ${reason}`, conversation_key });
  }

  #conversation(key: string): LiveConversation {
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

  #schedule(key: string): void {
    const conversation = this.#conversation(key);
    conversation.wake = true;
    if (conversation.pump !== null) return;
    conversation.pump = this.#pump(conversation)
      .catch((error) => this.#failed(conversation, error))
      .finally(() => {
        conversation.pump = null;
        if (conversation.wake && this.#state !== 'aborting' && this.#state !== 'closed') {
          this.#schedule(key);
        } else {
          this.#evict();
          // a slot freed with nothing queued here: take what waits on a busy (or dead) node now,
          // not at the next poll
          if (
            conversation.worked &&
            this.store.shared === true &&
            this.#runs.free &&
            this.#runs.waiting === 0
          ) {
            void this.#look_for_work();
          }
        }
      });
  }

  /**
   * Works a conversation under its claim. With a local store the claim is held while messages
   * wait; with a shared one a run slot is taken first and the claim covers one run, so a node with
   * a free slot can take the conversation's next message. After the claim is released the log is
   * read once more: a message appended by another node while this one was letting go (its own
   * claim then failed) would otherwise wait for the next message.
   */
  async #pump(conversation: LiveConversation): Promise<void> {
    const { key } = conversation;
    const shared = this.store.shared === true;
    conversation.worked = false;
    if (shared) {
      await this.#runs.acquire();
      if (this.#state === 'aborting' || this.#state === 'closed') {
        this.#runs.release();
        return;
      }
    }
    let claim: Claim | null;
    try {
      claim = await this.store.lock.claim(key);
    } catch (error) {
      if (shared) this.#runs.release();
      throw error;
    }
    if (claim === null) {
      if (shared) this.#runs.release();
      conversation.wake = false; // another worker has it, and will see the message
      return;
    }
    let look_again = false;
    try {
      if (shared) await this.#refresh(conversation, claim);
      // a shared store's claim right after this node's own last one: nobody else left chunks
      // unsent, and this node sent all of its own unless a send failed
      if (!shared || claim.epoch !== conversation.last_epoch + 1 || conversation.unsent_left) {
        conversation.unsent_left = false;
        await this.#delivery.send_unsent(key);
      }
      for (;;) {
        if (this.#state === 'aborting' || this.#state === 'closed') return;
        conversation.wake = false;
        let pending = await this.store.log.pending(key);
        if (pending.length === 0) {
          if (conversation.wake) continue;
          look_again = true;
          return;
        }
        if (this.#mode(key) === 'collect') pending = await this.#settle_collect(conversation);
        const finished = await this.#run(conversation, claim, pending, shared);
        conversation.worked = true;
        if (!finished) return;
        if (shared) {
          look_again = true;
          return;
        }
      }
    } finally {
      await this.store.lock.release(claim);
      if (shared) {
        conversation.last_epoch = claim.epoch;
        this.#runs.release();
      }
      if (this.#state !== 'aborting' && this.#state !== 'closed') {
        const waiting = (await this.store.log.pending(key)).length > 0;
        // a pump that failed is retried only when a message came meanwhile (or by the poll)
        conversation.wake = look_again
          ? conversation.wake || waiting
          : conversation.wake && waiting;
      }
    }
  }

  /**
   * A shared store: when another node may have worked the conversation since this node's last
   * claim (the epoch is not the next one), the live session is closed so that it is loaded anew.
   */
  async #refresh(conversation: LiveConversation, claim: Claim): Promise<void> {
    const watch = conversation.watch;
    if (watch === null || claim.epoch === conversation.last_epoch + 1) return;
    watch.close();
    conversation.watch = null;
    await this.host
      .close(watch.session_id)
      .catch((error) => this.#warn(conversation.key, 'closing a stale session failed', error));
  }

  /** `collect`: waits until no message came for the debounce time; resolves all pending. */
  async #settle_collect(conversation: LiveConversation): Promise<LoggedMessage[]> {
    const debounce = this.#options.collect_debounce_ms ?? 1500;
    for (;;) {
      const pending = await this.store.log.pending(conversation.key);
      const last = pending.at(-1)?.logged_at ?? 0;
      const wait = last + debounce - Date.now();
      if (wait <= 0 || this.#state !== 'open') return pending;
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
    const batch = this.#mode(conversation.key) === 'collect' ? pending : pending.slice(0, 1);
    const tried = conversation.failures;
    if (tried !== null && tried.seq === batch[0]?.seq) {
      if (tried.lasting || tried.count >= (this.#options.max_attempts ?? 3)) {
        await this.#dead_letter(conversation, claim, batch, tried);
        return true;
      }
    }
    let session_id: string;
    try {
      session_id = await this.#session(conversation, claim);
    } catch (error) {
      throw new RunFailed(error, batch);
    }
    const watch = conversation.watch;
    if (watch === null) throw new Error(`no session for ${conversation.key}`);
    if (!slot_held) await this.#runs.acquire();
    const release_slot = () => {
      if (!slot_held) this.#runs.release();
    };
    if (this.#state === 'aborting' || this.#state === 'closed') {
      release_slot();
      return false;
    }
    const stop_typing = this.#delivery.typing(batch.at(-1)?.message);
    try {
      const in_flight: NonNullable<LiveConversation['in_flight']> = { turn_id: null, steered: [] };
      conversation.in_flight = in_flight;
      let ticket: Awaited<ReturnType<SessionHost['prompt']>>;
      try {
        const sender = batch.at(-1)?.message;
        const messages = batch.map((m) => m.message);
        // a team's custom command (`/review x`) sends its own prompt, with the batch's pictures
        const command = await command_prompt(this.host, session_id, messages);
        const text = command ?? prompt_text(messages);
        const images = messages.flatMap((m) => m.images ?? []);
        ticket = await this.host.prompt(session_id, text, {
          ...(images.length === 0 ? {} : { images }),
          client_request_id: `gateway:${conversation.key}#${batch.at(-1)?.seq ?? 0}`,
          // the sender's daily budget and the conversation's, where the config sets them
          budget_scopes: {
            conversation: conversation.key,
            ...(sender === undefined ? {} : { sender: sender_key(sender) }),
          },
        });
      } catch (error) {
        throw new RunFailed(error, batch);
      }
      let turn_id = ticket.turn_id;
      in_flight.turn_id = turn_id;
      let answering = batch;
      for (;;) {
        const end = await watch.wait_turn(turn_id);
        const taken = in_flight.steered.splice(0, watch.take_steered(turn_id).length);
        if (end.stop_reason === 'aborted') return false;
        conversation.last_active = Date.now();
        await this.#delivery.answer(claim, [...answering, ...taken], end);
        if (in_flight.steered.length === 0) return true;
        // steering that came after the run's last model call: the host runs it as its next turn
        answering = in_flight.steered.splice(0);
        turn_id = await watch.next_host_turn();
        in_flight.turn_id = turn_id;
      }
    } finally {
      conversation.in_flight = null;
      stop_typing();
      release_slot();
    }
  }

  async #session(conversation: LiveConversation, claim: Claim): Promise<string> {
    if (conversation.watch !== null) return conversation.watch.session_id;
    await this.#closing.get(conversation.key);
    const known = await this.store.log.session_of(conversation.key);
    let session_id: string | null = null;
    if (known !== null) {
      try {
        session_id = (await this.host.load(known)).session_id;
      } catch (error) {
        this.#warn(conversation.key, `session ${known} could not be loaded, starting anew`, error);
      }
    }
    if (session_id === null) {
      const info = await this.host.create({
        title: conversation.key,
        approval_mode: this.#options.approval_mode ?? 'default',
      });
      session_id = info.session_id;
      await this.store.log.bind_session(conversation.key, session_id, claim);
    }
    conversation.watch = await SessionWatch.open(this.host, session_id, {
      can_approve: this.#approvals !== null,
      hooks: {
        on_permission_request: (request) => this.#approvals?.request(request, conversation.key),
        on_permission_resolved: (request_id) => this.#approvals?.resolved(request_id),
      },
    });
    this.#evict();
    return session_id;
  }

  /** Closes the least recently active idle sessions while more than the cap are live. */
  #evict(): void {
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
      const closing = this.host
        .close(watch.session_id)
        .catch((error) => this.#warn(conversation.key, 'closing an evicted session failed', error))
        .finally(() => this.#closing.delete(conversation.key));
      this.#closing.set(conversation.key, closing);
    }
  }

  /**
   * A pump that threw: a run that could not start counts against its message (the next pump
   * dead-letters it once it may not be tried more); anything else is logged.
   */
  #failed(conversation: LiveConversation, error: unknown): void {
    if (!(error instanceof RunFailed)) {
      this.#warn(conversation.key, 'the conversation stopped', error);
      return;
    }
    const seq = error.batch[0]?.seq ?? 0;
    const before = conversation.failures;
    const count = before !== null && before.seq === seq ? before.count + 1 : 1;
    conversation.failures = { seq, count, lasting: error.lasting, error: error.message };
    this.#warn(conversation.key, `message ${seq} could not be run (try ${count})`, error);
    // looked at again at once: the next pump runs it again, or dead-letters it
    if (this.#state === 'open') conversation.wake = true;
  }

  /** Answers `batch` with the error notice and marks it done: it will never be run. */
  async #dead_letter(
    conversation: LiveConversation,
    claim: Claim,
    batch: LoggedMessage[],
    failures: NonNullable<LiveConversation['failures']>,
  ): Promise<void> {
    this.#log({
      level: 'warn',
      message: `message ${failures.seq} dead-lettered after ${failures.count} tr${failures.count === 1 ? 'y' : 'ies'}: ${failures.error}`,
      conversation_key: conversation.key,
    });
    conversation.failures = null;
    await this.#delivery.answer(claim, batch, {
      turn_id: '',
      stop_reason: 'error',
      final: null,
      error: failures.error,
      usage: { input_tokens: 0, output_tokens: 0 },
      turns_used: 0,
    });
  }
}

import type { ApprovalMode, SessionHost } from '@lich/agent';
import {
  type AccessDecision,
  type AccessPolicyConfig,
  decide_access,
  resolve_access_policy,
} from './access_policy.js';
import {
  type GatewayAdapter,
  type GatewayIngress,
  type IngestResult,
  type Settlement,
  target_of,
} from './adapter.js';
import { ApprovalRouter } from './approval_router.js';
import { chunk_reply } from './chunk_reply.js';
import { Deduper } from './dedupe.js';
import { DEFAULT_TEXTS, type GatewayTexts } from './gateway_texts.js';
import { type InboundMessage, message_key, sender_key } from './inbound_message.js';
import { memory_store } from './memory_store.js';
import type { PairingStore } from './pairing_store.js';
import { prompt_text } from './prompt_text.js';
import { type RateLimitOptions, SenderRateLimit } from './rate_limit.js';
import { Semaphore } from './semaphore.js';
import { SessionWatch, type TurnEnd } from './session_watch.js';
import {
  type Claim,
  type GatewayStore,
  type LoggedMessage,
  type OutboxEntry,
  outbox_key,
  type ReplyTarget,
} from './storage.js';

/** What a message arriving while its conversation runs does. */
export type ConversationMode = 'queue' | 'steer' | 'collect';

/** One line for the operator's log. */
export interface GatewayLogEntry {
  level: 'info' | 'warn' | 'error';
  message: string;
  conversation_key?: string;
}

/** How a bus is made. Every cap has the default. */
export interface GatewayBusOptions {
  host: SessionHost;
  adapter: GatewayAdapter;
  /** The access policy of the adapter's platform (checked here: a bad one throws). */
  access: AccessPolicyConfig;
  /** Needed when the policy pairs (the default with no allowlist). */
  pairing?: PairingStore;
  /** Default `memory_store()`. The runner passes the JSONL store, issue 19 a PostgreSQL one. */
  store?: GatewayStore;
  /** Default `queue`. */
  mode?: ConversationMode;
  /** The mode of one conversation, when it differs (default: `mode` for all). */
  mode_of?: (conversation_key: string) => ConversationMode;
  /** Runs in flight at once, across conversations (default 8). */
  max_concurrency?: number;
  /** Conversations held live; past it the least recently active idle one is closed (default 200). */
  max_conversations?: number;
  /** `collect`: wait this long after the last message before prompting (default 1500 ms). */
  collect_debounce_ms?: number;
  /** Per-sender limit; `false` for none. */
  rate_limit?: RateLimitOptions | false;
  /** How long a platform message id is remembered as seen (default 15 min). */
  dedupe_ttl_ms?: number;
  /** The permission mode of new sessions (default `default`: with no approver, `ask` is deny). */
  approval_mode?: ApprovalMode;
  /** Route permission requests to this chat as a reply prompt (default: none, so deny). */
  approvals_to?: ReplyTarget;
  /** Attempts per chunk send (default 4), with doubling backoff from `send_backoff_ms` (250). */
  send_attempts?: number;
  send_backoff_ms?: number;
  /**
   * A `shared` store: how often to look for conversations with work that no node is on (a node
   * died holding them, a hint was lost), in ms (default 1000). Not used with a local store.
   */
  poll_ms?: number;
  /**
   * A shared store: a conversation whose message has waited this long (its node died, or is
   * busy) is taken by a node with a free slot (default 1500 ms).
   */
  steal_after_ms?: number;
  texts?: Partial<GatewayTexts>;
  on_log?: (entry: GatewayLogEntry) => void;
}

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
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
 * - `drain` stops intake, lets every accepted message be answered until its deadline, then aborts
 *   the runs left; a message whose run was aborted stays in the log for the next start.
 */
export class GatewayBus implements GatewayIngress {
  readonly host: SessionHost;
  readonly adapter: GatewayAdapter;
  readonly store: GatewayStore;
  readonly texts: GatewayTexts;
  readonly #options: GatewayBusOptions;
  readonly #policy: ReturnType<typeof resolve_access_policy>['policy'];
  readonly #deduper: Deduper;
  readonly #rate: SenderRateLimit | null;
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
  /** Warnings of the access policy (allow_all…), for the runner to print. */
  readonly warnings: readonly string[];

  constructor(options: GatewayBusOptions) {
    this.#options = options;
    this.host = options.host;
    this.adapter = options.adapter;
    this.store = options.store ?? memory_store();
    this.texts = { ...DEFAULT_TEXTS, ...options.texts };
    const { policy, warnings } = resolve_access_policy(options.adapter.platform, options.access, {
      can_pair: options.adapter.can_pair && options.pairing !== undefined,
      public_groups: options.adapter.public_groups === true,
    });
    this.#policy = policy;
    this.warnings = warnings;
    this.#deduper = new Deduper({ ttl_ms: options.dedupe_ttl_ms });
    this.#rate = options.rate_limit === false ? null : new SenderRateLimit(options.rate_limit);
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

  async receive(message: InboundMessage): Promise<IngestResult> {
    if (this.#state !== 'open') return { status: 'closed' };
    if (message.sender.is_bot) return { status: 'ignored', reason: 'bot' };
    const key = message_key(message);
    if (this.#deduper.check_and_remember(key)) return { status: 'duplicate' };
    const decision = await this.#decide(message);
    if (decision.action === 'ignore') return { status: 'ignored', reason: decision.reason };
    const verdict = this.#rate?.check(sender_key(message)) ?? 'ok';
    if (verdict !== 'ok') {
      const notice = verdict === 'limited_notify' ? this.texts.slow_down : null;
      if (notice !== null) this.#notify(message, notice);
      return { status: 'rate_limited', notice };
    }
    if (decision.action === 'pair') return this.#pair(message);
    const approval = await this.#approvals?.answer(message);
    if (approval !== undefined && approval !== null) {
      this.#notify(message, approval);
      return { status: 'approval', notice: approval };
    }
    let appended: Awaited<ReturnType<GatewayStore['log']['append']>>;
    try {
      appended = await this.store.log.append(message);
    } catch (error) {
      this.#deduper.forget(key); // not taken: a redelivery must get in
      throw error;
    }
    if (!appended.appended) return { status: 'duplicate' };
    const conversation = this.#conversation(message.conversation_key);
    conversation.last_active = Date.now();
    const in_flight = conversation.in_flight;
    if (
      this.#mode(message.conversation_key) === 'steer' &&
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
    if (this.#state !== 'open' || message.sender.is_bot || !message.is_direct) return false;
    if ((await this.#decide(message)).action !== 'pair') return false;
    const verdict = this.#rate?.check(sender_key(message)) ?? 'ok';
    if (verdict === 'limited_notify') this.#notify(message, this.texts.slow_down);
    if (verdict === 'ok') await this.#pair(message);
    return true;
  }

  #decide(message: InboundMessage): Promise<AccessDecision> {
    const pairing = this.#options.pairing;
    return decide_access(this.#policy, message, (user_id) =>
      pairing === undefined
        ? Promise.resolve(false)
        : pairing.is_approved(message.platform, user_id),
    );
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
    this.#stop_polling();
    for (const conversation of this.#live.values()) conversation.watch?.close();
    this.#live.clear();
    await this.store.close();
  }

  #mode(conversation_key: string): ConversationMode {
    return this.#options.mode_of?.(conversation_key) ?? this.#options.mode ?? 'queue';
  }

  #notify(message: InboundMessage, text: string): void {
    this.adapter
      .notify(target_of(message), text, message.platform_message_id)
      .catch((error) => this.#warn(message.conversation_key, 'a notice was not delivered', error));
  }

  #warn(conversation_key: string | undefined, what: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    this.#log({ level: 'warn', message: `${what}: ${reason}`, conversation_key });
  }

  async #pair(message: InboundMessage): Promise<IngestResult> {
    const pairing = this.#options.pairing;
    if (pairing === undefined) return { status: 'ignored', reason: 'not_allowed' };
    const result = await pairing.request_code(message.platform, message.sender);
    let notice: string | null = null;
    if (result.ok) notice = this.texts.pairing(message.platform, result.code);
    else if (result.reason !== 'rate_limited') notice = this.texts.pairing_unavailable;
    if (notice !== null) this.#notify(message, notice);
    this.#log({
      level: 'info',
      message: result.ok
        ? `pairing code given to ${message.sender.id} (${message.sender.name})`
        : `no pairing code for ${message.sender.id}: ${result.reason}`,
    });
    return { status: 'pairing', notice };
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
      .catch((error) => this.#warn(key, 'the conversation stopped', error))
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
        await this.#send_unsent(key);
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
    const session_id = await this.#session(conversation, claim);
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
    const stop_typing = this.#typing(batch.at(-1)?.message);
    try {
      const in_flight: NonNullable<LiveConversation['in_flight']> = { turn_id: null, steered: [] };
      conversation.in_flight = in_flight;
      const ticket = await this.host.prompt(session_id, prompt_text(batch.map((m) => m.message)), {
        client_request_id: `gateway:${conversation.key}#${batch.at(-1)?.seq ?? 0}`,
      });
      let turn_id = ticket.turn_id;
      in_flight.turn_id = turn_id;
      let answering = batch;
      for (;;) {
        const end = await watch.wait_turn(turn_id);
        const taken = in_flight.steered.splice(0, watch.take_steered(turn_id).length);
        if (end.stop_reason === 'cancelled') return false;
        conversation.last_active = Date.now();
        await this.#answer(claim, [...answering, ...taken], end);
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

  #typing(message: InboundMessage | undefined): () => void {
    const every = this.adapter.typing_interval_ms;
    const typing = this.adapter.typing?.bind(this.adapter);
    if (message === undefined || every === undefined || typing === undefined) return () => {};
    const target = target_of(message);
    const tick = () => void typing(target).catch(() => undefined);
    tick();
    const timer = setInterval(tick, every);
    return () => clearInterval(timer);
  }

  /** Writes the reply to the outbox, marks its messages done, then sends it. */
  async #answer(claim: Claim, taken: LoggedMessage[], end: TurnEnd): Promise<void> {
    // done up to the last of an unbroken run of seqs: a gap (a steer the host refused) is run after
    const sorted = [...taken].sort((a, b) => a.seq - b.seq);
    const answered = sorted.filter((logged, index) => logged.seq - index === sorted[0]?.seq);
    const last = answered.at(-1);
    if (last === undefined) return;
    const failed = end.stop_reason === 'error';
    if (failed) this.#warn(claim.conversation_key, 'the run failed', end.error ?? 'no message');
    const text = failed ? this.texts.error_reply : (end.final ?? '').trim();
    const chunks = chunk_reply(text, this.adapter.max_message_chars);
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
    if (this.store.answer !== undefined) await this.store.answer(entries, last.seq, claim);
    else {
      await this.store.outbox.put(entries, claim);
      await this.store.log.mark_done(claim.conversation_key, last.seq, claim);
    }
    for (const entry of entries) await this.#send(entry);
    const reply = entries.length === 0 ? null : { key: entries[0]?.key ?? '', text, chunks };
    const outcome: Settlement['outcome'] = failed ? 'failed' : reply ? 'answered' : 'no_answer';
    for (const logged of answered) {
      this.adapter.settled?.({
        message: logged.message,
        outcome,
        reply,
        stop_reason: end.stop_reason,
      });
    }
  }

  async #send_unsent(conversation_key: string): Promise<void> {
    for (const entry of await this.store.outbox.unsent(conversation_key)) await this.#send(entry);
  }

  async #send(entry: OutboxEntry): Promise<void> {
    const attempts = this.#options.send_attempts ?? 4;
    let delay = this.#options.send_backoff_ms ?? 250;
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.adapter.send(entry);
        await this.store.outbox.mark_sent(entry.key);
        return;
      } catch (error) {
        if (attempt >= attempts) {
          // left unsent in the outbox: the next claim (or start) sends it
          const conversation = this.#live.get(entry.target.conversation_key);
          if (conversation !== undefined) conversation.unsent_left = true;
          this.#warn(entry.target.conversation_key, `chunk ${entry.key} not sent`, error);
          return;
        }
        await sleep(delay);
        delay *= 2;
      }
    }
  }
}

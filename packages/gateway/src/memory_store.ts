import { DEFAULT_DEDUPE_TTL_MS, Deduper } from './dedupe.js';
import { type InboundMessage, message_key } from './inbound_message.js';
import {
  type AppendResult,
  type Claim,
  type ConversationLock,
  type ConversationLog,
  FencedError,
  type GatewayStore,
  type LoggedMessage,
  type Outbox,
  type OutboxEntry,
} from './storage.js';

interface ConversationRecord {
  next_seq: number;
  pending: LoggedMessage[];
  session_id: string | null;
  /** The current claim's epoch (0: never claimed). */
  epoch: number;
  held: boolean;
}

/** How the in-memory state is bounded. */
export interface MemoryStoreOptions {
  /** How long a done message's key is remembered for `append`'s idempotence (default 15 min). */
  done_ttl_ms?: number;
  now?: () => number;
}

/**
 * The state of the embedded store: conversations (each kept, small: its next seq and session, so
 * seqs never repeat), pending messages, unsent chunks. The JSONL
 * store replays its file into one of these, then journals every change made to it.
 *
 * Contract: the mutators are synchronous and validate before they change anything (a fenced write
 * changes nothing), so a journal written after them records only what happened.
 */
export class MemoryState {
  readonly conversations = new Map<string, ConversationRecord>();
  /** Keys (`message_key`) of messages pending, so `append` refuses them. */
  readonly pending_keys = new Set<string>();
  readonly done_keys: Deduper;
  readonly outbox = new Map<string, OutboxEntry>();
  readonly now: () => number;
  /** Epochs grow across restarts too: they start above the clock, in microseconds. */
  #last_epoch: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.done_keys = new Deduper({ ttl_ms: options.done_ttl_ms ?? DEFAULT_DEDUPE_TTL_MS });
    this.#last_epoch = this.now() * 1000;
  }

  conversation(key: string): ConversationRecord {
    let record = this.conversations.get(key);
    if (record === undefined) {
      record = { next_seq: 1, pending: [], session_id: null, epoch: 0, held: false };
      this.conversations.set(key, record);
    }
    return record;
  }

  /** Whether `message` may be appended (not pending, not done lately). */
  is_new(message: InboundMessage): boolean {
    const key = message_key(message);
    if (this.pending_keys.has(key)) return false;
    return !this.done_keys.has(key);
  }

  append(message: InboundMessage, seq: number, logged_at: number): void {
    const record = this.conversation(message.conversation_key);
    record.pending.push({ seq, message, logged_at });
    record.next_seq = Math.max(record.next_seq, seq + 1);
    this.pending_keys.add(message_key(message));
  }

  check_claim(claim: Claim): void {
    const record = this.conversations.get(claim.conversation_key);
    if (record === undefined || !record.held || record.epoch !== claim.epoch) {
      throw new FencedError(claim);
    }
  }

  mark_done(conversation_key: string, seq: number): void {
    const record = this.conversation(conversation_key);
    while (record.pending.length > 0 && (record.pending[0]?.seq ?? Infinity) <= seq) {
      const done = record.pending.shift();
      if (done === undefined) break;
      const key = message_key(done.message);
      this.pending_keys.delete(key);
      this.done_keys.check_and_remember(key);
    }
  }

  bind(conversation_key: string, session_id: string): void {
    this.conversation(conversation_key).session_id = session_id;
  }

  next_epoch(): number {
    this.#last_epoch = Math.max(this.#last_epoch + 1, this.now() * 1000);
    return this.#last_epoch;
  }

  put(entry: OutboxEntry): boolean {
    if (this.outbox.has(entry.key)) return false;
    this.outbox.set(entry.key, entry);
    return true;
  }

  mark_sent(key: string): void {
    this.outbox.delete(key);
  }
}

/** The log over a `MemoryState`, with a hook called after each change (the JSONL journal). */
export class MemoryLog implements ConversationLog {
  constructor(
    readonly state: MemoryState,
    readonly journal: (record: object) => Promise<void> = async () => undefined,
  ) {}

  async append(message: InboundMessage): Promise<AppendResult> {
    if (!this.state.is_new(message)) return { appended: false };
    const seq = this.state.conversation(message.conversation_key).next_seq;
    const logged_at = this.state.now();
    this.state.append(message, seq, logged_at);
    await this.journal({ t: 'in', seq, at: logged_at, message });
    return { appended: true, seq };
  }

  async pending(conversation_key: string): Promise<LoggedMessage[]> {
    return [...(this.state.conversations.get(conversation_key)?.pending ?? [])];
  }

  async mark_done(conversation_key: string, seq: number, claim: Claim): Promise<void> {
    this.state.check_claim(claim);
    this.state.mark_done(conversation_key, seq);
    await this.journal({ t: 'done', key: conversation_key, seq, at: this.state.now() });
  }

  async pending_conversations(): Promise<string[]> {
    return [...this.state.conversations]
      .filter(([, record]) => record.pending.length > 0)
      .map(([key]) => key);
  }

  async session_of(conversation_key: string): Promise<string | null> {
    return this.state.conversations.get(conversation_key)?.session_id ?? null;
  }

  async bind_session(conversation_key: string, session_id: string, claim: Claim): Promise<void> {
    this.state.check_claim(claim);
    this.state.bind(conversation_key, session_id);
    await this.journal({ t: 'bind', key: conversation_key, session_id });
  }
}

/** One process's lock: a claim is refused while another of the same key is held. */
export class MemoryLock implements ConversationLock {
  constructor(readonly state: MemoryState) {}

  async claim(conversation_key: string): Promise<Claim | null> {
    const record = this.state.conversation(conversation_key);
    if (record.held) return null;
    record.held = true;
    record.epoch = this.state.next_epoch();
    return { conversation_key, epoch: record.epoch };
  }

  async holds(claim: Claim): Promise<boolean> {
    const record = this.state.conversations.get(claim.conversation_key);
    return record?.held === true && record.epoch === claim.epoch;
  }

  async release(claim: Claim): Promise<void> {
    const record = this.state.conversations.get(claim.conversation_key);
    if (record === undefined || record.epoch !== claim.epoch) return;
    record.held = false;
  }
}

/** The outbox over a `MemoryState`. */
export class MemoryOutbox implements Outbox {
  constructor(
    readonly state: MemoryState,
    readonly journal: (record: object) => Promise<void> = async () => undefined,
  ) {}

  async put(entries: readonly OutboxEntry[], claim: Claim): Promise<void> {
    this.state.check_claim(claim);
    const added = entries.filter((entry) => this.state.put(entry));
    for (const entry of added) await this.journal({ t: 'out', entry });
  }

  async unsent(conversation_key: string): Promise<OutboxEntry[]> {
    return [...this.state.outbox.values()]
      .filter((entry) => entry.target.conversation_key === conversation_key)
      .sort((a, b) => a.seq - b.seq || a.index - b.index);
  }

  async mark_sent(key: string): Promise<void> {
    if (!this.state.outbox.has(key)) return;
    this.state.mark_sent(key);
    await this.journal({ t: 'sent', key });
  }

  async conversations_with_unsent(): Promise<string[]> {
    return [
      ...new Set([...this.state.outbox.values()].map((entry) => entry.target.conversation_key)),
    ];
  }
}

/**
 * The in-memory store: one process, nothing survives it. Memory holds pending messages, the
 * session bound to each conversation, unsent chunks, and the keys of done messages for
 * `done_ttl_ms`.
 */
export function memory_store(options: MemoryStoreOptions = {}): GatewayStore {
  const state = new MemoryState(options);
  return {
    log: new MemoryLog(state),
    lock: new MemoryLock(state),
    outbox: new MemoryOutbox(state),
    close: async () => undefined,
  };
}

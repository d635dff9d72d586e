/**
 * The bus's storage, behind three narrow interfaces, so that a store shared by several gateway
 * processes (PostgreSQL) plugs in without a change to the bus. The embedded defaults are
 * `memory_store()` (tests, library use) and `open_jsonl_store(dir)` (the runner: one process, a
 * restart continues). See the package README, "Storage", for the contract each must keep.
 */
import type { InboundMessage } from './inbound_message.js';

/** A claim on one conversation: only its holder works the conversation's messages. */
export interface Claim {
  conversation_key: string;
  /**
   * The fencing token: every claim of a key has a higher epoch than the claims before it, so a
   * store can refuse a write from a holder whose claim was taken over. A `shared` store's epochs
   * grow by exactly one per claim of a key, so a node whose new claim is its last one plus one
   * knows that nobody worked the conversation in between.
   */
  epoch: number;
}

/** A write made under a claim that is no longer current. */
export class FencedError extends Error {
  readonly claim: Claim;

  constructor(claim: Claim) {
    super(`the claim on ${claim.conversation_key} (epoch ${claim.epoch}) is no longer held`);
    this.name = 'FencedError';
    this.claim = claim;
  }

  /** True for a `FencedError`, even from another copy of this package. */
  static is_instance(value: unknown): value is FencedError {
    return value instanceof Error && value.name === 'FencedError';
  }
}

/** One inbound message as the log holds it. */
export interface LoggedMessage {
  /** Its place in its conversation: 1, 2, 3… in the order the log accepted them. */
  seq: number;
  message: InboundMessage;
  /** When the log accepted it, ms since the epoch. */
  logged_at: number;
}

/**
 * What `ConversationLog.append` did. `elsewhere` (a shared store): another live node worked the
 * conversation last and was hinted; the appending node leaves the message to it.
 */
export type AppendResult =
  | { appended: true; seq: number; elsewhere?: boolean }
  | { appended: false };

/**
 * The inbound messages of every conversation, and which session each conversation continues.
 *
 * Contract:
 * - `append` is idempotent on `(platform, account, platform_message_id)`: a message already
 *   logged (within the store's memory of done messages, at least the dedupe window) is not
 *   appended again and resolves `{ appended: false }`; an appended message is durable when the
 *   promise resolves (the bus acknowledges the platform only then);
 * - `seq` grows by one per appended message of a conversation, in append order;
 * - `pending` lists the messages not yet marked done, in `seq` order; `mark_done(key, seq)` marks
 *   every message of the conversation up to `seq`; both that and `bind_session` reject with
 *   `FencedError` when the claim is no longer the conversation's current one;
 * - `pending_conversations` lists the keys with pending messages (what a restart must finish).
 */
export interface ConversationLog {
  append(message: InboundMessage): Promise<AppendResult>;
  pending(conversation_key: string): Promise<LoggedMessage[]>;
  mark_done(conversation_key: string, seq: number, claim: Claim): Promise<void>;
  pending_conversations(): Promise<string[]>;
  /** The session the conversation continues, or null when it has none yet. */
  session_of(conversation_key: string): Promise<string | null>;
  bind_session(conversation_key: string, session_id: string, claim: Claim): Promise<void>;
}

/**
 * Who works a conversation now.
 *
 * Contract: `claim` resolves a claim when nobody holds the key (the epoch higher than any earlier
 * claim of it), or null when another worker does; `holds` says whether a claim is still current
 * (a lock held by a database connection dies with it); `release` gives a claim up (idempotent).
 */
export interface ConversationLock {
  claim(conversation_key: string): Promise<Claim | null>;
  holds(claim: Claim): Promise<boolean>;
  release(claim: Claim): Promise<void>;
}

/** Where a reply goes. */
export interface ReplyTarget {
  platform: string;
  account: string;
  chat_id: string;
  conversation_key: string;
}

/** One chunk of a reply, waiting to be sent or sent. */
export interface OutboxEntry {
  /** The idempotency key: `<conversation_key>#<seq>#<index>`. */
  key: string;
  target: ReplyTarget;
  /** The `seq` of the message answered (the last one, when several were merged). */
  seq: number;
  /** The platform message id answered, for threading the reply. */
  reply_to: string;
  /** Every platform message id this reply answers (several when merged or steered in). */
  answers: string[];
  index: number;
  count: number;
  text: string;
}

/**
 * Replies to send, one entry per chunk.
 *
 * Contract: `put` stores entries under their keys, leaving an existing key as it is (so a
 * take-over that recomputes a reply never sends a chunk twice); `unsent` lists a conversation's
 * entries not marked sent, in `seq` then `index` order; `mark_sent` is idempotent; `put` rejects
 * with `FencedError` when the claim is no longer current.
 */
export interface Outbox {
  put(entries: readonly OutboxEntry[], claim: Claim): Promise<void>;
  unsent(conversation_key: string): Promise<OutboxEntry[]>;
  mark_sent(key: string): Promise<void>;
  /** The keys of conversations with unsent entries. */
  conversations_with_unsent(): Promise<string[]>;
}

/**
 * The right to take a platform's input that only one consumer may take (Telegram long polling,
 * the Discord gateway, Twitch IRC), held by one node of a shared store at a time.
 */
export interface IngressLease {
  readonly name: string;
  /** Grows by one each time the lease changes hands. */
  readonly epoch: number;
  /** Resolves when the lease is lost (its holder's connection died): stop taking input then. */
  readonly lost: Promise<void>;
  /** Gives the lease up (another node waiting takes it). Idempotent. */
  release(): Promise<void>;
}

/** The three stores a bus runs on. */
export interface GatewayStore {
  log: ConversationLog;
  lock: ConversationLock;
  outbox: Outbox;
  /**
   * True when several processes work the store at once (PostgreSQL). The bus then takes a
   * conversation's claim for one run at a time (so a node with a free slot takes waiting
   * conversations), reloads a session another node may have written, polls for conversations
   * a dead node left, and listens to `on_wake`.
   */
  readonly shared?: boolean;
  /**
   * Hints that a message was logged on another node: `mine` for a conversation this node worked
   * last (`append` said `elsewhere` there), `new` for one no node has worked yet (the bus takes
   * it only with a free run slot, so new conversations go to idle nodes). Only a hint: it may be
   * late, lost or repeated; polling is the fallback. Returns the unsubscribe.
   */
  on_wake?(listener: (conversation_key: string, kind: 'mine' | 'new') => void): () => void;
  /**
   * The conversations with a message (or a reply chunk) waiting longer than `ms` that no node is
   * running now, oldest first: what a node that died left, or a busy node has not reached. The
   * bus polls this (all pending when absent), and looks once more whenever a run slot frees.
   */
  waiting_longer_than?(ms: number): Promise<string[]>;
  /**
   * `outbox.put(entries)` and `log.mark_done(key, seq)` as one write (one round trip to a
   * database): both or neither, rejecting with `FencedError` when the claim is no longer current.
   * The bus uses the two calls when absent.
   */
  answer?(entries: readonly OutboxEntry[], seq: number, claim: Claim): Promise<void>;
  /**
   * True for the first claim of `key` among every node of the store, false for each later one: a
   * notice sent for all nodes (the owner told that a budget stopped a conversation) is sent by
   * the node that claimed it. Absent: each process tells on its own.
   */
  claim_notice?(key: string): Promise<boolean>;
  /** Waits until this node holds the ingress lease `name`; rejects when `signal` fires first. */
  acquire_lease?(name: string, options?: { signal?: AbortSignal }): Promise<IngressLease>;
  /** Flushes and closes what the store holds open. Idempotent. */
  close(): Promise<void>;
}

/** The outbox key of chunk `index` of the reply to message `seq` of a conversation. */
export function outbox_key(conversation_key: string, seq: number, index: number): string {
  return `${conversation_key}#${seq}#${index}`;
}

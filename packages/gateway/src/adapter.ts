/**
 * The contract between the bus and one chat platform. A platform package implements
 * `GatewayAdapter` and nothing else of the bus: it turns the platform's updates into
 * `InboundMessage`s, hands them to `ingress.receive`, and sends what the bus gives back.
 */
import type { TurnStopReason } from '@lich/agent';
import type { IgnoreReason } from './access_policy.js';
import type { AttachmentIntake } from './attachment_intake.js';
import type { InboundMessage } from './inbound_message.js';
import type { OutboxEntry, ReplyTarget } from './storage.js';

/** What the bus did with a message handed to `receive`. */
export type IngestResult =
  /** Logged; it will be answered in its conversation's order (see `settled`). */
  | { status: 'accepted'; seq: number }
  /** Seen before (a redelivery): dropped. */
  | { status: 'duplicate' }
  /** Not answered (the access policy, or a bot). Nothing was said to the sender. */
  | { status: 'ignored'; reason: IgnoreReason }
  /** An unknown sender under pairing. `notice` is what they were told (null: nothing). */
  | { status: 'pairing'; notice: string | null }
  /** Refused at the door: it says nothing (no text, no attachment). Never logged nor run. */
  | { status: 'invalid'; reason: string }
  /** Over the sender's rate limit: dropped. `notice` is "slow down" the first time, then null. */
  | { status: 'rate_limited'; notice: string | null }
  /** The owner's answer to a permission request, taken as such (not a prompt). */
  | { status: 'approval'; notice: string }
  /** The bus is draining or closed: not taken. The platform should redeliver it later. */
  | { status: 'closed' };

/** Where the bus hands messages. */
export interface GatewayIngress {
  receive(message: InboundMessage): Promise<IngestResult>;
  /**
   * A platform's greeting command (Telegram's `/start`) from `message.sender`. Under pairing, a
   * sender who is not let in is given a pairing code, exactly as their first message would give
   * one, and this resolves `true`; otherwise it resolves `false` and the adapter answers with its
   * own help. Never runs the agent and never logs the message.
   */
  greet?(message: InboundMessage): Promise<boolean>;
}

/** What became of an accepted message. */
export interface Settlement {
  message: InboundMessage;
  /**
   * `answered`: a reply was sent (`reply` set); `no_answer`: the run ended without text;
   * `failed`: the run failed and the error notice was sent as the reply.
   */
  outcome: 'answered' | 'no_answer' | 'failed';
  /** The reply that answers it; shared by the messages merged into one prompt. */
  reply: { key: string; text: string; chunks: string[] } | null;
  stop_reason: TurnStopReason;
}

/**
 * One chat platform.
 *
 * Contract:
 * - `start` resolves once the adapter takes messages, and hands each one to `ingress.receive`
 *   (concurrently is fine: the bus orders each conversation itself); it acknowledges a message to
 *   the platform only after `receive` resolved, so a crash never loses an acknowledged message;
 * - it ignores nothing itself except what it cannot represent: access, bots, dedupe and rate
 *   limits are the bus's, so every platform behaves the same;
 * - `send` delivers one chunk (at most `max_message_chars` characters) to `chunk.target`, as a
 *   reply to `chunk.reply_to` where the platform threads replies; it rejects when the chunk was
 *   not delivered (the bus retries it with backoff); chunks of one conversation are sent one at a
 *   time, in order;
 * - `notify` says something from the gateway itself (a pairing code, "slow down", an approval
 *   prompt) outside the outbox; best effort;
 * - `typing`, when present, is called every `typing_interval_ms` while a run is in flight;
 * - `settled`, when present, hears once what became of each accepted message;
 * - `take_attachments`, when present, is called for a message with attachments once the bus let it
 *   in (never for a sender the policy ignores, so a stranger cannot make the bot download): it
 *   downloads the pictures from the platform's own file host only, under its size cap, and
 *   refuses the rest with a reason; it never throws for a bad attachment;
 * - `stop_intake` stops taking messages (the first step of a drain); `send` still works after it;
 *   `close` releases everything and is idempotent.
 */
export interface GatewayAdapter {
  /** The platform's name, as in `lich gateway <platform>`: `webhook`, `telegram`… */
  readonly platform: string;
  /** The longest message the platform takes, in characters (4096 Telegram, 2000 Discord…). */
  readonly max_message_chars: number;
  /** True when the adapter can show a pairing code to an unknown user who wrote to it. */
  readonly can_pair: boolean;
  /** How often to repeat the typing indicator while a run is in flight; absent: none. */
  readonly typing_interval_ms?: number;
  /**
   * True when only one process may take the platform's input (Telegram long polling, the Discord
   * gateway, Twitch IRC): with a shared store, only the node holding the ingress lease starts it,
   * and the others work the log.
   */
  readonly single_consumer?: boolean;
  /**
   * True when anyone can join the platform's groups (a Twitch channel is open to every viewer):
   * the policy's `group_senders` then defaults to `allowed`, so an allowed group does not let in
   * every passer-by.
   */
  readonly public_groups?: boolean;
  start(ingress: GatewayIngress): Promise<void>;
  send(chunk: OutboxEntry): Promise<void>;
  notify(target: ReplyTarget, text: string, reply_to: string | null): Promise<void>;
  typing?(target: ReplyTarget): Promise<void>;
  settled?(settlement: Settlement): void;
  take_attachments?(message: InboundMessage, signal: AbortSignal): Promise<AttachmentIntake>;
  stop_intake(): Promise<void>;
  close(): Promise<void>;
}

/** The target of replies to `message`. */
export function target_of(message: InboundMessage): ReplyTarget {
  return {
    platform: message.platform,
    account: message.account,
    chat_id: message.chat_id,
    conversation_key: message.conversation_key,
  };
}

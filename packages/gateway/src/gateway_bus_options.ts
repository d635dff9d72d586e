import type { ApprovalMode, SessionHost } from '@lich/agent';
import type { AccessPolicyConfig } from './access_policy.js';
import type { GatewayAdapter } from './adapter.js';
import type { GatewayLogEntry } from './gateway_log.js';
import type { GatewayTexts } from './gateway_texts.js';
import type { PairingStore } from './pairing_store.js';
import type { RateLimitOptions } from './rate_limit.js';
import type { GatewayStore, ReplyTarget } from './storage.js';

/** What a message arriving while its conversation runs does. */
export type ConversationMode = 'queue' | 'steer' | 'collect';

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
  /**
   * The owner's chat, told once per budget window when a spending limit stops a conversation
   * (default: `approvals_to`; neither: a log line instead).
   */
  owner_to?: ReplyTarget;
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
  /**
   * Tries of a message whose run fails before it starts (the host refuses it, a session cannot be
   * opened) before it is dead-lettered: answered with the error notice and marked done, so the
   * conversation goes on (default 3; a refusal the host will always give is dead-lettered at once).
   */
  max_attempts?: number;
  texts?: Partial<GatewayTexts>;
  on_log?: (entry: GatewayLogEntry) => void;
}

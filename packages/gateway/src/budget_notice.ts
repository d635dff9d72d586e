import type { GatewayAdapter } from './adapter.js';
import type { GatewayLogEntry } from './gateway_log.js';
import type { GatewayTexts } from './gateway_texts.js';
import type { ReplyTarget } from './storage.js';

/** What one budget stop was: where, who, which limit. */
export interface BudgetStopped {
  conversation_key: string;
  /** The sender's key (`platform:user`), when the run had one. */
  sender: string | undefined;
  /** The limit's scope as the agent names it: `session`, `day`, `sender`, `conversation`. */
  scope: string | undefined;
  /** Which limit it was and why, as the agent said it. */
  reason: string;
}

/** What a `BudgetNotice` needs. */
export interface BudgetNoticeOptions {
  adapter: GatewayAdapter;
  /** The owner's chat (`owner_chat`, else `approvals_chat`); none: a log line says how to set it. */
  owner: ReplyTarget | undefined;
  texts: GatewayTexts;
  log: (entry: GatewayLogEntry) => void;
  /** The clock (tests). */
  now?: () => number;
  /**
   * The store's `claim_notice`: on several nodes, only the first to claim a window tells the
   * owner. A claim that fails (the database away) tells anyway: twice beats never.
   */
  claim?: (key: string) => Promise<boolean>;
}

/** Windows remembered before the oldest are forgotten (a day's worth of busy conversations). */
const MAX_WINDOWS = 10_000;

/**
 * The budget window a stop belongs to: the owner is told once per window. A daily limit's window
 * is its UTC day (the sender's for `sender`, the work dir's for `day`); a conversation's or a
 * session's limit never renews, so its window is the conversation.
 *
 * Contract: pure, never throws.
 */
export function budget_window(stop: BudgetStopped, now: number): string {
  const day = new Date(now).toISOString().slice(0, 10);
  switch (stop.scope) {
    case 'sender':
      return `sender:${stop.sender ?? stop.conversation_key}:${day}`;
    case 'day':
      return `day:${day}`;
    case 'conversation':
    case 'session':
      return `${stop.scope}:${stop.conversation_key}`;
    default:
      return `${stop.scope ?? 'budget'}:${stop.conversation_key}:${day}`;
  }
}

/**
 * Tells the gateway's owner, in one direct message through the gateway's own adapter, that a
 * spending limit stopped a conversation — once per budget window (`budget_window`), not per
 * message: the second sender's message refused by the same daily limit tells nobody again.
 *
 * Contract: `stopped` never throws and never waits: a failed send is a warning in the log; with no
 * owner chat configured, one warning per window says what stopped and how to be told in a chat.
 * Windows are remembered by this process, and with `claim` by the store: several nodes on one
 * database tell the owner once between them.
 */
export class BudgetNotice {
  readonly #options: BudgetNoticeOptions;
  readonly #told = new Set<string>();

  constructor(options: BudgetNoticeOptions) {
    this.#options = options;
  }

  /** Hears one budget stop; tells the owner when its window has not been told yet. */
  stopped(stop: BudgetStopped): void {
    const { owner, log } = this.#options;
    const window = budget_window(stop, (this.#options.now ?? Date.now)());
    if (this.#told.has(window)) return;
    this.#told.add(window);
    if (this.#told.size > MAX_WINDOWS) {
      const oldest = this.#told.values().next().value;
      if (oldest !== undefined) this.#told.delete(oldest);
    }
    if (owner === undefined) {
      log({
        level: 'warn',
        message: `a budget stopped ${stop.conversation_key} (${stop.reason}); the owner is not told in a chat: set owner_chat (or approvals_chat) in gateway.json for that`,
        conversation_key: stop.conversation_key,
      });
      return;
    }
    const claim = this.#options.claim;
    if (claim === undefined) {
      this.#tell(owner, stop);
      return;
    }
    claim(`budget:${window}`).then(
      (first) => {
        if (first) this.#tell(owner, stop);
      },
      () => this.#tell(owner, stop),
    );
  }

  #tell(owner: ReplyTarget, stop: BudgetStopped): void {
    const { adapter, texts, log } = this.#options;
    const text = texts.budget_owner_notice(stop.conversation_key, stop.reason);
    adapter.notify(owner, text, null).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      log({
        level: 'warn',
        message: `could not tell the owner (${owner.conversation_key}) that a budget stopped ${stop.conversation_key}: ${reason}`,
        conversation_key: stop.conversation_key,
      });
    });
  }
}

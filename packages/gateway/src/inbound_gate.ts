import {
  type AccessDecision,
  type AccessPolicyConfig,
  decide_access,
  resolve_access_policy,
} from './access_policy.js';
import { type GatewayAdapter, type IngestResult, target_of } from './adapter.js';
import type { ApprovalRouter } from './approval_router.js';
import { Deduper } from './dedupe.js';
import type { GatewayLogEntry } from './gateway_log.js';
import type { GatewayTexts } from './gateway_texts.js';
import { type InboundMessage, message_key, sender_key } from './inbound_message.js';
import type { PairingStore } from './pairing_store.js';
import { type RateLimitOptions, SenderRateLimit } from './rate_limit.js';

/** How the gate is made (the bus's options that concern who and what gets in). */
export interface InboundGateOptions {
  adapter: GatewayAdapter;
  access: AccessPolicyConfig;
  pairing?: PairingStore;
  rate_limit?: RateLimitOptions | false;
  dedupe_ttl_ms?: number;
  approvals: ApprovalRouter | null;
  texts: GatewayTexts;
  log: (entry: GatewayLogEntry) => void;
}

/** What the gate says of a message: a verdict to return as is, or `pass` to log it. */
export type GateVerdict = IngestResult | { status: 'pass'; forget: () => void };

/** A sender whose pairing code waits is told so at most this often. */
const WAITING_NOTICE_EVERY_MS = 60 * 60 * 1000;

/** Whether a message says anything: some text, an attachment or a picture. */
export function has_content(message: InboundMessage): boolean {
  return (
    message.text.trim() !== '' ||
    message.attachments.length > 0 ||
    (message.images !== undefined && message.images.length > 0)
  );
}

/**
 * The door of a gateway: what a message must pass before it is logged. In order: a bot is
 * ignored; an empty message (no text, no attachment) is refused as `invalid`, never logged, so it
 * can never block its conversation; a redelivery is a `duplicate`; the access policy decides (a
 * drop is logged with its reason); the sender's rate limit; an unknown sender under pairing gets a
 * code; an owner's answer to a permission request is taken as such.
 *
 * Contract: never throws for a message (a failing pairing store or notice is logged); `pass`
 * carries `forget`, to call when the message could not be logged after all, so its redelivery
 * gets in.
 */
export class InboundGate {
  readonly #options: InboundGateOptions;
  readonly #policy: ReturnType<typeof resolve_access_policy>['policy'];
  readonly #deduper: Deduper;
  readonly #rate: SenderRateLimit | null;
  /** When each waiting sender was last told their code waits (they are told once an hour). */
  readonly #told_waiting = new Map<string, number>();
  /** Warnings of the access policy (allow_all…), for the runner to print. */
  readonly warnings: readonly string[];

  constructor(options: InboundGateOptions) {
    this.#options = options;
    const { policy, warnings } = resolve_access_policy(options.adapter.platform, options.access, {
      can_pair: options.adapter.can_pair && options.pairing !== undefined,
      public_groups: options.adapter.public_groups === true,
    });
    this.#policy = policy;
    this.warnings = warnings;
    this.#deduper = new Deduper({ ttl_ms: options.dedupe_ttl_ms });
    this.#rate = options.rate_limit === false ? null : new SenderRateLimit(options.rate_limit);
  }

  async check(message: InboundMessage): Promise<GateVerdict> {
    if (message.sender.is_bot) return { status: 'ignored', reason: 'bot' };
    if (!has_content(message)) {
      this.#options.log({
        level: 'info',
        message: `an empty message from ${message.sender.id} was refused (no text, no attachment)`,
        conversation_key: message.conversation_key,
      });
      return { status: 'invalid', reason: 'the message has no text and no attachment' };
    }
    const key = message_key(message);
    if (this.#deduper.check_and_remember(key)) return { status: 'duplicate' };
    const decision = await this.#decide(message);
    if (decision.action === 'ignore') {
      this.#options.log({
        level: 'info',
        message: `a message from ${message.sender.id} in ${message.chat_id} was dropped by the access policy: ${decision.reason}`,
        conversation_key: message.conversation_key,
      });
      return { status: 'ignored', reason: decision.reason };
    }
    const verdict = this.#rate?.check(sender_key(message)) ?? 'ok';
    if (verdict !== 'ok') {
      const notice = verdict === 'limited_notify' ? this.#options.texts.slow_down : null;
      if (notice !== null) this.notify(message, notice);
      return { status: 'rate_limited', notice };
    }
    if (decision.action === 'pair') return this.#pair(message);
    const approval = await this.#options.approvals?.answer(message);
    if (approval !== undefined && approval !== null) {
      this.notify(message, approval);
      return { status: 'approval', notice: approval };
    }
    return { status: 'pass', forget: () => this.#deduper.forget(key) };
  }

  /** See `GatewayIngress.greet`. */
  async greet(message: InboundMessage): Promise<boolean> {
    if (message.sender.is_bot || !message.is_direct) return false;
    if ((await this.#decide(message)).action !== 'pair') return false;
    const verdict = this.#rate?.check(sender_key(message)) ?? 'ok';
    if (verdict === 'limited_notify') this.notify(message, this.#options.texts.slow_down);
    if (verdict === 'ok') await this.#pair(message);
    return true;
  }

  /** Says `text` to the message's chat, in reply to it; a failure is logged. */
  notify(message: InboundMessage, text: string): void {
    this.#options.adapter
      .notify(target_of(message), text, message.platform_message_id)
      .catch((error: unknown) =>
        this.#options.log({
          level: 'warn',
          message: `a notice was not delivered: ${error instanceof Error ? error.message : String(error)}`,
          conversation_key: message.conversation_key,
        }),
      );
  }

  /** "Your code waits", unless this sender was told so within the hour. */
  #waiting_notice(message: InboundMessage): string | null {
    const key = sender_key(message);
    const now = Date.now();
    const told = this.#told_waiting.get(key);
    if (told !== undefined && now - told < WAITING_NOTICE_EVERY_MS) return null;
    this.#told_waiting.set(key, now);
    if (this.#told_waiting.size > 10_000) {
      for (const [other, at] of this.#told_waiting) {
        if (now - at >= WAITING_NOTICE_EVERY_MS) this.#told_waiting.delete(other);
      }
    }
    return this.#options.texts.pairing_waiting;
  }

  #decide(message: InboundMessage): Promise<AccessDecision> {
    const pairing = this.#options.pairing;
    return decide_access(this.#policy, message, (user_id) =>
      pairing === undefined
        ? Promise.resolve(false)
        : pairing.is_approved(message.platform, user_id),
    );
  }

  async #pair(message: InboundMessage): Promise<IngestResult> {
    const { pairing, texts } = this.#options;
    if (pairing === undefined) return { status: 'ignored', reason: 'not_allowed' };
    const result = await pairing.request_code(message.platform, message.sender);
    let notice: string | null = null;
    if (result.ok) notice = texts.pairing(message.platform, result.code);
    else if (result.reason === 'rate_limited') notice = this.#waiting_notice(message);
    else notice = texts.pairing_unavailable;
    if (notice !== null) this.notify(message, notice);
    this.#options.log({
      level: 'info',
      message: result.ok
        ? `pairing code given to ${message.sender.id} (${message.sender.name})`
        : `no pairing code for ${message.sender.id}: ${result.reason}`,
    });
    return { status: 'pairing', notice };
  }
}

/** A per-sender message budget. */
export interface RateLimitOptions {
  /** Messages a sender may send in a burst (default 8). */
  burst?: number;
  /** …refilled at this many per minute (default 20). */
  per_minute?: number;
  /** At most this many senders are tracked; the least recent go first (default 10 000). */
  max_senders?: number;
  now?: () => number;
}

/** What the limiter says about one message. */
export type RateVerdict =
  /** Within the budget. */
  | 'ok'
  /** Over the budget, and the sender has not been told yet: answer "slow down" once. */
  | 'limited_notify'
  /** Over the budget and already told: drop it silently. */
  | 'limited_silent';

interface Bucket {
  tokens: number;
  updated: number;
  told: boolean;
}

/**
 * A token bucket per sender.
 *
 * Contract: `check(sender)` spends one token and answers `ok`, or answers `limited_notify` the
 * first time a sender is over the budget and `limited_silent` after that, until the sender has a
 * token again (then the next excess is told once more). Memory is bounded by `max_senders`.
 */
export class SenderRateLimit {
  readonly #burst: number;
  readonly #per_ms: number;
  readonly #max_senders: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimitOptions = {}) {
    this.#burst = options.burst ?? 8;
    this.#per_ms = (options.per_minute ?? 20) / 60_000;
    this.#max_senders = options.max_senders ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  check(sender: string): RateVerdict {
    const now = this.#now();
    const bucket = this.#buckets.get(sender) ?? { tokens: this.#burst, updated: now, told: false };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updated) * this.#per_ms);
    bucket.updated = now;
    // most recently used last, so the first key is the one to drop
    this.#buckets.delete(sender);
    this.#buckets.set(sender, bucket);
    if (this.#buckets.size > this.#max_senders) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest !== undefined) this.#buckets.delete(oldest);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      bucket.told = false;
      return 'ok';
    }
    if (bucket.told) return 'limited_silent';
    bucket.told = true;
    return 'limited_notify';
  }
}

/** How long and how many message keys a `Deduper` remembers. */
export interface DeduperOptions {
  /** A key seen again within this many ms is a duplicate (default 15 minutes). */
  ttl_ms?: number;
  /** At most this many keys are held; the oldest are forgotten first (default 100 000). */
  max_entries?: number;
  /** The clock, for tests (default `Date.now`). */
  now?: () => number;
}

/** The default dedupe window: platforms redeliver within minutes (Telegram on a slow answer). */
export const DEFAULT_DEDUPE_TTL_MS = 15 * 60_000;

/**
 * Remembers message keys for a while, so a platform's redelivery is dropped instead of answered
 * twice (duplicate replies are the most reported gateway bug elsewhere).
 *
 * Contract: `check_and_remember(key)` answers true when `key` was remembered less than `ttl_ms`
 * ago (a duplicate), else remembers it and answers false. Memory is bounded by `max_entries`:
 * expired keys are dropped as new ones arrive, and past the bound the oldest go first.
 */
export class Deduper {
  readonly #ttl_ms: number;
  readonly #max_entries: number;
  readonly #now: () => number;
  /** key → time seen; a Map iterates in insertion order, so the first entries are the oldest. */
  readonly #seen = new Map<string, number>();

  constructor(options: DeduperOptions = {}) {
    this.#ttl_ms = options.ttl_ms ?? DEFAULT_DEDUPE_TTL_MS;
    this.#max_entries = options.max_entries ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  /** How many keys are held. */
  get size(): number {
    return this.#seen.size;
  }

  /** True when `key` is a duplicate; otherwise remembers it. */
  check_and_remember(key: string): boolean {
    const now = this.#now();
    this.#expire(now);
    const seen_at = this.#seen.get(key);
    if (seen_at !== undefined && now - seen_at < this.#ttl_ms) return true;
    this.#seen.delete(key);
    this.#seen.set(key, now);
    while (this.#seen.size > this.#max_entries) {
      const oldest = this.#seen.keys().next().value;
      if (oldest === undefined) break;
      this.#seen.delete(oldest);
    }
    return false;
  }

  /** True when `key` was remembered less than `ttl_ms` ago (remembers nothing). */
  has(key: string): boolean {
    const seen_at = this.#seen.get(key);
    return seen_at !== undefined && this.#now() - seen_at < this.#ttl_ms;
  }

  /** The keys held and when each was seen, oldest first (for a store's snapshot). */
  entries(): [key: string, seen_at: number][] {
    return [...this.#seen];
  }

  /** Remembers `key` as seen at `seen_at` (a store's replay); an expired time is ignored. */
  remember(key: string, seen_at: number): void {
    if (this.#now() - seen_at >= this.#ttl_ms) return;
    this.#seen.delete(key);
    this.#seen.set(key, seen_at);
  }

  /** Forgets `key` (a message that was refused before it was accepted may come again). */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  #expire(now: number): void {
    for (const [key, seen_at] of this.#seen) {
      if (now - seen_at < this.#ttl_ms) break;
      this.#seen.delete(key);
    }
  }
}

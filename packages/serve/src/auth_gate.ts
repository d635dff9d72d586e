import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The verdict on one authentication attempt. */
export type AuthVerdict =
  | { ok: true }
  | { ok: false; reason: 'missing' | 'wrong' }
  | { ok: false; reason: 'limited'; retry_after_ms: number };

/** How failed attempts are limited. */
export interface AuthGateOptions {
  /** Failed attempts allowed in a burst before every attempt is refused (default 10). */
  burst?: number;
  /** One more failed attempt is allowed after each interval of this length (default 1000 ms). */
  refill_ms?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** A new token: 32 random bytes, base64url. */
export function make_token(): string {
  return randomBytes(32).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Checks tokens in constant time, and limits failed attempts without ever locking out the right
 * token: a local process that keeps sending wrong tokens slows or closes only its own attempts.
 *
 * Contract:
 * - every candidate is compared, through SHA-256 digests with `timingSafeEqual`, so neither its
 *   content nor its length shows in the time taken; the right token is accepted whatever failed
 *   before (a 256-bit token cannot be guessed, so a limit need not shut the door on it);
 * - each failure (missing or wrong) spends one credit of `burst` (from every source together:
 *   on loopback every peer is 127.0.0.1); credits come back one per `refill_ms`; a failure with
 *   no credit left is answered `limited` with `retry_after_ms`, which the transport turns into a
 *   slower, closing answer for that attempt only;
 * - `failures` and `limited` count what happened (tests, logs).
 */
export class AuthGate {
  readonly #expected: Buffer;
  readonly #burst: number;
  readonly #refill_ms: number;
  readonly #now: () => number;
  #credits: number;
  #refilled_at: number;
  /** Attempts that were compared and failed. */
  failures = 0;
  /** Failed attempts answered `limited`. */
  limited = 0;

  constructor(token: string, options: AuthGateOptions = {}) {
    this.#expected = digest(token);
    this.#burst = options.burst ?? 10;
    this.#refill_ms = options.refill_ms ?? 1000;
    this.#now = options.now ?? Date.now;
    this.#credits = this.#burst;
    this.#refilled_at = this.#now();
  }

  /** Judges one attempt. */
  check(candidate: string | undefined): AuthVerdict {
    if (candidate !== undefined && timingSafeEqual(digest(candidate), this.#expected)) {
      return { ok: true };
    }
    this.failures += 1;
    this.#refill();
    if (this.#credits < 1) {
      this.limited += 1;
      return {
        ok: false,
        reason: 'limited',
        retry_after_ms: Math.max(1, this.#refilled_at + this.#refill_ms - this.#now()),
      };
    }
    this.#credits -= 1;
    return { ok: false, reason: candidate === undefined ? 'missing' : 'wrong' };
  }

  #refill(): void {
    const now = this.#now();
    if (this.#credits >= this.#burst) {
      this.#refilled_at = now;
      return;
    }
    const earned = Math.floor((now - this.#refilled_at) / this.#refill_ms);
    if (earned <= 0) return;
    this.#credits = Math.min(this.#burst, this.#credits + earned);
    this.#refilled_at += earned * this.#refill_ms;
  }
}

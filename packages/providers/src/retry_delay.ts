import type { ProviderError } from './provider_error.js';

/** The retry settings of the router. */
export interface RetryPolicy {
  /** Retries on the same provider after the first request (default 2). */
  max_retries: number;
  /** The longest `retry-after` honoured; a longer one moves to the next provider (default 60 s). */
  retry_after_cap_ms: number;
  /** The first backoff (default 500 ms); it doubles each retry. */
  backoff_base_ms: number;
  /** The longest backoff (default 8 s). */
  backoff_max_ms: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  max_retries: 2,
  retry_after_cap_ms: 60_000,
  backoff_base_ms: 500,
  backoff_max_ms: 8_000,
});

/**
 * How long to wait before retry number `retry` (0-based) after `error`, or `undefined` when it
 * must not be retried: not retryable (status, quota, `x-should-retry: false`, parse, abort),
 * retries used up, or a `retry-after` longer than the cap. Deterministic: `retry-after` when the
 * provider sent one, else `backoff_base_ms × 2^retry` capped at `backoff_max_ms`, no jitter.
 */
export function retry_delay(
  error: ProviderError,
  retry: number,
  policy: RetryPolicy,
  restartable = false,
): number | undefined {
  // a delivered stream is retried only when the caller can start it over (`restartable`)
  if (!error.retryable || error.kind === 'aborted' || (error.delivered && !restartable)) {
    return undefined;
  }
  if (retry >= policy.max_retries) return undefined;
  if (error.retry_after_ms !== undefined) {
    return error.retry_after_ms <= policy.retry_after_cap_ms ? error.retry_after_ms : undefined;
  }
  return Math.min(policy.backoff_base_ms * 2 ** retry, policy.backoff_max_ms);
}

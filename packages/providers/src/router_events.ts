import type { ProviderErrorKind } from './provider_error.js';

/** The router is about to try the same provider again after a retryable failure. */
export interface ProviderRetryEvent {
  type: 'provider_retry';
  /** The provider's kind, e.g. `anthropic`. */
  provider: string;
  model: string;
  /** Its position in the chain. */
  index: number;
  /** Which retry this is: 1 for the first. */
  attempt: number;
  max_retries: number;
  /** How long the router waits before it (from `retry-after`, or the backoff). */
  delay_ms: number;
  /** The failure's message. */
  reason: string;
  error_kind: ProviderErrorKind;
  status?: number;
}

/** The router gives up on one provider and moves to the next in the chain. */
export interface ProviderFailoverEvent {
  type: 'provider_failover';
  from_provider: string;
  from_model: string;
  from_index: number;
  to_provider: string;
  to_model: string;
  to_index: number;
  /** Why the previous provider was left: its last failure's message. */
  reason: string;
  error_kind: ProviderErrorKind;
  status?: number;
}

/** What `ProviderRouter` reports while it works, for surfaces to show. */
export type RouterEvent = ProviderRetryEvent | ProviderFailoverEvent;

/** What went wrong, in words the router decides on. */
export type ProviderErrorKind =
  | 'http' // the API answered with an error status or an error body
  | 'network' // no connection, reset, DNS
  | 'timeout' // idle timeout: the stream sent nothing for too long
  | 'stream' // the stream broke or ended early
  | 'parse' // the answer could not be understood (HTML body, bad JSON, missing fields)
  | 'aborted' // the caller aborted
  | 'config'; // the provider cannot be built (unknown kind, missing key)

const MARKER = Symbol.for('lich.provider_error');

/** The fields a `ProviderError` is made from. */
export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  provider: string;
  model: string;
  /** The HTTP status, when there was one. */
  status?: number;
  /** The provider's own error message (from its error body), when it gave one. */
  provider_message?: string;
  /** The provider's error type or code, e.g. `rate_limit_error`, `insufficient_quota`. */
  code?: string;
  /** The request id the provider returned, for support tickets. */
  request_id?: string;
  /** How long the provider asked us to wait, from `retry-after` / `retry-after-ms`. */
  retry_after_ms?: number;
  /** Overrides the retryability derived from kind and status (e.g. `x-should-retry`). */
  retryable?: boolean;
  /** Whether any delta was delivered to `on_delta` before the failure. */
  delivered?: boolean;
  /** Replaces the message `describe` would make (the router's summaries use it). */
  message?: string;
  cause?: unknown;
}

/**
 * The one error type of a failed model call.
 *
 * Contract: `message` names the provider, the model, the status and the provider's message;
 * `retryable` says whether trying the same provider again may help (408/409/429/5xx/529, network
 * errors and timeouts, unless the provider said otherwise or it is a quota or billing error).
 * Use `ProviderError.is_instance` rather than `instanceof`: it survives duplicated package copies.
 */
export class ProviderError extends Error {
  readonly [MARKER] = true;
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly provider_message: string | undefined;
  readonly code: string | undefined;
  readonly request_id: string | undefined;
  readonly retry_after_ms: number | undefined;
  readonly retryable: boolean;
  readonly delivered: boolean;

  constructor(init: ProviderErrorInit) {
    super(init.message ?? ProviderError.describe(init), { cause: init.cause });
    this.name = 'ProviderError';
    this.kind = init.kind;
    this.provider = init.provider;
    this.model = init.model;
    this.status = init.status;
    this.provider_message = init.provider_message;
    this.code = init.code;
    this.request_id = init.request_id;
    this.retry_after_ms = init.retry_after_ms;
    this.delivered = init.delivered ?? false;
    this.retryable = init.retryable ?? ProviderError.default_retryable(init);
  }

  /** True for any `ProviderError`, including one from another copy of this package. */
  static is_instance(value: unknown): value is ProviderError {
    return typeof value === 'object' && value !== null && MARKER in value;
  }

  /**
   * This error marked `delivered` (a delta had already reached `on_delta`, so the router must not
   * retry or fail over, or the text would be shown twice). Returns `this` when there is nothing to
   * change; never throws.
   */
  with_delivered(delivered: boolean): ProviderError {
    if (!delivered || this.delivered) return this;
    return new ProviderError({
      ...failure_facts(this),
      retry_after_ms: this.retry_after_ms,
      retryable: this.retryable,
      message: this.message,
      delivered: true,
      cause: this.cause,
    });
  }

  /** Whether an error of this shape is worth retrying on the same provider. */
  static default_retryable(init: Pick<ProviderErrorInit, 'kind' | 'status' | 'code'>): boolean {
    if (init.kind === 'aborted' || init.kind === 'config' || init.kind === 'parse') return false;
    if (init.code !== undefined && /quota|billing|credit/i.test(init.code)) return false;
    if (init.kind === 'network' || init.kind === 'timeout' || init.kind === 'stream') return true;
    const status = init.status;
    if (status === undefined) return false;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }

  /** The one-line message: `anthropic (claude-x): HTTP 429 rate_limit_error: slow down`. */
  static describe(init: ProviderErrorInit): string {
    const parts: string[] = [];
    if (init.status !== undefined) parts.push(`HTTP ${init.status}`);
    else parts.push(init.kind === 'http' ? 'error' : `${init.kind} error`);
    // a code that only repeats the status (`429`) says nothing more
    if (init.code && init.code !== String(init.status)) parts.push(init.code);
    let text = `${init.provider} (${init.model}): ${parts.join(' ')}`;
    if (init.provider_message) text += `: ${init.provider_message}`;
    else if (init.cause instanceof Error && init.cause.message) text += `: ${init.cause.message}`;
    if (init.request_id) text += ` [request ${init.request_id}]`;
    return text;
  }
}

/**
 * What failed, to build another error about the same failure: kind, provider, model, status, the
 * provider's message, code and request id. Leaves out the retry advice (`retry_after_ms`,
 * `retryable`), `delivered`, the message and the cause, which such an error decides anew.
 */
export function failure_facts(error: ProviderError): ProviderErrorInit {
  return {
    kind: error.kind,
    provider: error.provider,
    model: error.model,
    status: error.status,
    provider_message: error.provider_message,
    code: error.code,
    request_id: error.request_id,
  };
}

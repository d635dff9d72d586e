import { ProviderError } from './provider_error.js';

/** Options of `create_idle_timeout`. */
export interface IdleTimeoutOptions {
  /** Silence allowed before giving up; `0` or `Infinity` disables the timer. */
  idle_timeout_ms: number;
  provider: string;
  model: string;
  /** The caller's signal; `signal` below also fires when it does. */
  signal?: AbortSignal;
}

/** An idle timer bound to one request. */
export interface IdleTimeout {
  /** Fires on the caller's abort or on the timeout; pass it to `fetch`. */
  readonly signal: AbortSignal;
  /** Whether the timer fired (as opposed to the caller aborting). */
  readonly timed_out: boolean;
  /** Restarts the timer: call it whenever bytes arrive. No effect once fired or cleared. */
  touch(): void;
  /** Stops the timer for good (the request finished). Idempotent. */
  clear(): void;
  /** The `ProviderError` of kind `timeout` the request was aborted with. */
  error(): ProviderError;
}

/**
 * Starts an idle timer for one request: when `touch` is not called for `idle_timeout_ms`, `signal`
 * aborts with a `ProviderError` of kind `timeout` (retryable). The timer does not keep the process
 * alive. Must not throw.
 */
export function create_idle_timeout(options: IdleTimeoutOptions): IdleTimeout {
  const controller = new AbortController();
  const limit = options.idle_timeout_ms;
  const enabled = Number.isFinite(limit) && limit > 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timed_out = false;
  let cleared = false;
  const error = () =>
    new ProviderError({
      kind: 'timeout',
      provider: options.provider,
      model: options.model,
      cause: new Error(`no data for ${limit} ms`),
    });
  const fire = () => {
    timer = undefined;
    timed_out = true;
    controller.abort(error());
  };
  const touch = () => {
    if (!enabled || cleared || timed_out) return;
    if (timer !== undefined) timer.refresh();
    else {
      timer = setTimeout(fire, limit);
      timer.unref?.();
    }
  };
  touch();
  const signal = options.signal
    ? AbortSignal.any([options.signal, controller.signal])
    : controller.signal;
  return {
    signal,
    get timed_out() {
      return timed_out;
    },
    touch,
    clear() {
      cleared = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
    error,
  };
}

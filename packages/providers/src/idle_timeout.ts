import { AbortHub, type AbortLike } from './abort_hub.js';
import { ProviderError } from './provider_error.js';

/** Options of `create_idle_timeout`. */
export interface IdleTimeoutOptions {
  /** Silence allowed before giving up; `0` or `Infinity` disables the timer. */
  idle_timeout_ms: number;
  provider: string;
  model: string;
  /** The caller's signal; `signal` below also fires when it does (until `clear`). */
  signal?: AbortSignal;
}

/** An idle timer bound to one request. */
export interface IdleTimeout {
  /** Fires on the caller's abort, on the timeout or on `stop`; pass it to the transport. */
  readonly signal: AbortLike;
  /** Whether the timer fired (as opposed to the caller aborting). */
  readonly timed_out: boolean;
  /** Whether `stop` fired `signal`. */
  readonly stopped: boolean;
  /** Restarts the timer: call it whenever bytes arrive. No effect once fired or cleared. */
  touch(): void;
  /** Fires `signal` with an `AbortError` (the request's own cancel) and clears the timer. */
  stop(): void;
  /**
   * Stops the timer for good and stops listening to the caller's signal (the request finished).
   * Idempotent.
   */
  clear(): void;
  /** The `ProviderError` of kind `timeout` the request was aborted with. */
  error(): ProviderError;
}

/**
 * Starts an idle timer for one request: when `touch` is not called for `idle_timeout_ms`, `signal`
 * aborts with a `ProviderError` of kind `timeout` (retryable). The timer does not keep the process
 * alive. Must not throw.
 *
 * The caller's signal is followed through one listener, removed by `clear`, rather than
 * `AbortSignal.any`: that costs a dependent signal per request, kept until garbage collection,
 * and this runs once per model call.
 */
export function create_idle_timeout(options: IdleTimeoutOptions): IdleTimeout {
  const controller = new AbortHub();
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
  let stopped = false;
  const caller = options.signal;
  const follow = () => controller.abort(caller?.reason);
  if (caller?.aborted) follow();
  else caller?.addEventListener('abort', follow, { once: true });
  const clear = () => {
    cleared = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    caller?.removeEventListener('abort', follow);
  };
  return {
    signal: controller,
    get timed_out() {
      return timed_out;
    },
    get stopped() {
      return stopped;
    },
    touch,
    stop() {
      if (!controller.aborted) {
        stopped = true;
        controller.abort(new DOMException('the request was cancelled', 'AbortError'));
      }
      clear();
    },
    clear,
    error,
  };
}

import { watch_abort } from '@lich/core';
import { AbortHub, type AbortLike } from './abort_hub.js';
import { ProviderError } from './provider_error.js';

/** Options of `create_idle_timeout`. */
export interface IdleTimeoutOptions {
  /** Silence allowed before giving up; `0` or `Infinity` (or over 99 days) disables the timer. */
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
  /** Says bytes arrived, which restarts the timer. No effect once fired or cleared. */
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
 * How many checks the timer makes per `idle_timeout_ms`: it fires after this many checks in a row
 * found no `touch` since the one before, so between `idle_timeout_ms` and a quarter more after the
 * last one. `touch` only sets a flag: restarting a Node timer on every chunk of a stream (a dozen
 * per model call) costs more than the rest of the chunk's way to the stream state.
 */
const CHECKS_PER_TIMEOUT = 4;

/** The longest delay a Node timer takes; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Starts an idle timer for one request: when `touch` is not called for `idle_timeout_ms` (at most
 * a quarter more: see `CHECKS_PER_TIMEOUT`), `signal` aborts with a `ProviderError` of kind
 * `timeout` (retryable). It never fires sooner. The timer does not keep the process alive. Must
 * not throw.
 *
 * The caller's signal is followed through `watch_abort`, stopped by `clear`, rather than
 * `AbortSignal.any`: that costs a dependent signal per request, kept until garbage collection,
 * and this runs once per model call.
 */
export function create_idle_timeout(options: IdleTimeoutOptions): IdleTimeout {
  const controller = new AbortHub();
  const limit = options.idle_timeout_ms;
  // past Node's longest timer (~25 days a check) it would fire at once; so long is never
  const enabled = limit > 0 && limit / CHECKS_PER_TIMEOUT <= MAX_TIMER_MS;
  let timer: ReturnType<typeof setInterval> | undefined;
  let timed_out = false;
  /** Whether `touch` was called since the last check. */
  let heard = false;
  /** Checks in a row that found no `touch`. */
  let quiet = 0;
  const error = () =>
    new ProviderError({
      kind: 'timeout',
      provider: options.provider,
      model: options.model,
      cause: new Error(`no data for ${limit} ms`),
    });
  const check = () => {
    if (controller.aborted) {
      clear();
      return;
    }
    if (heard) {
      heard = false;
      quiet = 0;
      return;
    }
    quiet += 1;
    if (quiet < CHECKS_PER_TIMEOUT) return;
    clearInterval(timer);
    timer = undefined;
    timed_out = true;
    controller.abort(error());
  };
  if (enabled) {
    timer = setInterval(check, limit / CHECKS_PER_TIMEOUT);
    timer.unref?.();
  }
  const touch = () => {
    heard = true;
  };
  let stopped = false;
  const caller = options.signal;
  let unwatch: (() => void) | undefined;
  if (caller?.aborted) controller.abort(caller.reason);
  else if (caller) unwatch = watch_abort(caller, () => controller.abort(caller.reason));
  function clear() {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    unwatch?.();
  }
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

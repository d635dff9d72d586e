/** How a promise raced against an abort signal settled. */
export type RaceOutcome<T> = { aborted: false; value: T } | { aborted: true };

/**
 * Waits for `promise`, or for `signal` to abort, whichever comes first, so a callee that ignores
 * its signal can never hold the caller up.
 *
 * Contract: resolves `{ aborted: true }` as soon as `signal` aborts (at once when it already has);
 * otherwise settles like `promise`. A rejection of `promise` after the abort is swallowed, never
 * left unhandled. The abort listener is removed once `promise` settles.
 */
export function race_abort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<RaceOutcome<T>> {
  if (signal === undefined) return promise.then((value) => ({ aborted: false, value }));
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve({ aborted: true });
  }
  return new Promise((resolve, reject) => {
    const on_abort = () => resolve({ aborted: true });
    signal.addEventListener('abort', on_abort, { once: true });
    const unwatch = () => signal.removeEventListener('abort', on_abort);
    promise.then(
      (value) => {
        unwatch();
        resolve({ aborted: false, value });
      },
      (error: unknown) => {
        unwatch();
        if (signal.aborted) resolve({ aborted: true });
        else reject(error);
      },
    );
  });
}

/** A promise that resolves once a signal aborts, shared by many races; `dispose` detaches it. */
export interface AbortLatch {
  /** Resolves `{ aborted: true }` when the signal aborts; never when there is none. */
  promise: Promise<{ aborted: true }>;
  /** Removes the one listener from the signal. Safe to call more than once. */
  dispose(): void;
}

/**
 * One abort listener for many concurrent races (`Promise.race([work, latch.promise])`), so a turn
 * with many parallel tool calls adds one listener to the run's signal, not one per call (Node
 * warns past ten).
 *
 * Contract: never throws; call `dispose` once the races are over.
 */
export function abort_latch(signal: AbortSignal | undefined): AbortLatch {
  if (signal === undefined) return { promise: new Promise(() => {}), dispose: () => {} };
  if (signal.aborted) return { promise: Promise.resolve({ aborted: true }), dispose: () => {} };
  let on_abort = () => {};
  const promise = new Promise<{ aborted: true }>((resolve) => {
    on_abort = () => resolve({ aborted: true });
    signal.addEventListener('abort', on_abort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', on_abort) };
}

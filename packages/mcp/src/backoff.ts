/**
 * How long a dead server waits before its next start, and an abortable wait.
 */

/** The first restart waits this long; each further failure in a row doubles it. */
export const RESTART_BACKOFF_BASE_MS = 200;
/** The longest wait between restarts. */
export const RESTART_BACKOFF_MAX_MS = 30_000;

/** Backoff before restart number `failures` in a row: 200 ms, 400 ms, 800 ms… up to 30 s. */
export function backoff_ms(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(RESTART_BACKOFF_MAX_MS, RESTART_BACKOFF_BASE_MS * 2 ** (failures - 1));
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', on_abort);
      resolve(true);
    }, ms);
    const on_abort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', on_abort, { once: true });
  });
}

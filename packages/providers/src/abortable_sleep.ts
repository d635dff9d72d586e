/**
 * Waits `ms` milliseconds. Rejects at once with the signal's reason when `signal` aborts, before
 * or during the wait; the timer is then cleared.
 */
export function abortable_sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const reason = () =>
      signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError');
    if (signal?.aborted) {
      reject(reason());
      return;
    }
    const on_abort = () => {
      clearTimeout(timer);
      reject(reason());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', on_abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', on_abort, { once: true });
  });
}

/**
 * A condition a fake server's tests wait on: the fake calls `notify()` after anything changed,
 * and `until(check, what)` resolves once `check()` holds — at once when it already does — or
 * rejects after `timeout_ms` (default 5000) with `<name>: timed out waiting for <what>`.
 */
export interface Condition {
  notify(): void;
  until(check: () => boolean, what: string, timeout_ms?: number): Promise<void>;
}

/** A `Condition` whose timeout errors start with `name` (`fake discord`). */
export function condition(name: string): Condition {
  const waiters = new Set<() => void>();
  return {
    notify() {
      for (const waiter of waiters) waiter();
    },
    async until(check, what, timeout_ms = 5000) {
      if (check()) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`${name}: timed out waiting for ${what}`));
        }, timeout_ms);
        const waiter = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        };
        waiters.add(waiter);
      });
    },
  };
}

/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in arrival order.
 *
 * Contract: `acquire` resolves when a slot is free (FIFO); each acquisition is given back once with
 * `release`, which hands the slot straight to the longest waiter.
 */
export class Semaphore {
  readonly #limit: number;
  #held = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`bad limit: ${limit}`);
    this.#limit = limit;
  }

  /** Slots in use. */
  get held(): number {
    return this.#held;
  }

  /** True when `acquire` would resolve at once. */
  get free(): boolean {
    return this.#held < this.#limit;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  acquire(): Promise<void> {
    if (this.#held < this.#limit) {
      this.#held += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = Math.max(0, this.#held - 1);
    else next();
  }
}

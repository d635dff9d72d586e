/**
 * Twitch's chat limit as a sliding window: at most `limit` messages in any `window_ms` (20 per
 * 30 s for a bot, 100 as a moderator). Going over gets the bot ignored for 30 minutes, so every
 * send waits for a free slot; past `max_waiting` queued sends, a send is refused (the caller logs
 * and drops it), never sent.
 */
export class SendWindow {
  readonly limit: number;
  readonly window_ms: number;
  readonly max_waiting: number;
  readonly #sent: number[] = [];
  readonly #now: () => number;
  #waiting = 0;
  #tail: Promise<void> = Promise.resolve();

  constructor(options: {
    limit: number;
    window_ms: number;
    max_waiting?: number;
    now?: () => number;
  }) {
    this.limit = options.limit;
    this.window_ms = options.window_ms;
    this.max_waiting = options.max_waiting ?? 100;
    this.#now = options.now ?? Date.now;
  }

  /** How many sends wait for a slot. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Resolves true when a send may go now (and counts it), in call order; resolves false at once
   * when `max_waiting` sends already wait. `limit` (default the window's) is this send's own
   * ceiling: a send to a channel the bot moderates may go while fewer than 100 went in the
   * window, another only while fewer than 20 did.
   */
  take(limit: number = this.limit): Promise<boolean> {
    if (this.#waiting >= this.max_waiting) return Promise.resolve(false);
    this.#waiting += 1;
    const turn = this.#tail.then(() => this.#slot(limit));
    this.#tail = turn;
    return turn.then(() => {
      this.#waiting -= 1;
      return true;
    });
  }

  async #slot(limit: number): Promise<void> {
    for (;;) {
      const now = this.#now();
      while (this.#sent.length > 0 && (this.#sent[0] as number) <= now - this.window_ms) {
        this.#sent.shift();
      }
      if (this.#sent.length < limit) {
        this.#sent.push(now);
        return;
      }
      // the send that frees a slot for this one: the (length - limit + 1)th oldest leaving
      const wait = (this.#sent[this.#sent.length - limit] as number) + this.window_ms - now + 1;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

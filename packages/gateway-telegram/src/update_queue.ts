/** What an update needs to be queued: its id. */
export interface QueuedUpdate {
  update_id: number;
}

/** How an `UpdateQueue` works its updates. */
export interface UpdateQueueOptions<U extends QueuedUpdate> {
  /** Takes one update in (the gateway's `receive`); a rejection gives it back to Telegram. */
  handle(update: U): Promise<void>;
  /** The chat an update belongs to: a chat's updates run one at a time, in order. */
  chat_of(update: U): string;
  /** Told of each update that failed (it is given back, and so are its chat's later ones). */
  on_error(update: U, error: unknown): void;
}

/**
 * The updates long polling took and is working on: each chat's in order, chats side by side, so one
 * chat's slow message (a picture being downloaded) never holds up another chat's. Telegram
 * acknowledges an update when a later `getUpdates` asks from past it, so `offset` never passes
 * an update that has not finished: one running, waiting behind its chat, or given back.
 *
 * Contract: `take` skips updates it holds already (Telegram sends an unacknowledged update again
 * with every poll); an update whose `handle` rejects is given back, with the later updates of its
 * chat, so the next polls bring them again, in order; `handle` and `chat_of` are never called
 * twice at once for one chat.
 */
export class UpdateQueue<U extends QueuedUpdate> {
  readonly #options: UpdateQueueOptions<U>;
  /** Updates taken and not given back, from the offset on: running, waiting or finished. */
  readonly #taken = new Set<number>();
  /** Updates not finished: running, waiting, failed or given back. The offset stops at them. */
  readonly #unfinished = new Set<number>();
  /** The last update of each chat with work, and when its chain ends. */
  readonly #chains = new Map<string, Promise<void>>();
  /** Chats whose update failed: their later updates are given back until the chain ends. */
  readonly #broken = new Set<string>();
  #highest = -1;
  #failed = false;
  #wake: (() => void) | null = null;

  constructor(options: UpdateQueueOptions<U>) {
    this.#options = options;
  }

  /** True while some chat's update runs or waits. */
  get running(): boolean {
    return this.#chains.size > 0;
  }

  /**
   * The offset to poll from: the first update not finished, else past the last one taken. What
   * lies before it is forgotten: Telegram never sends an acknowledged update again.
   */
  offset(): number {
    let offset = this.#highest + 1;
    for (const id of this.#unfinished) if (id < offset) offset = id;
    for (const id of this.#taken) if (id < offset) this.#taken.delete(id);
    return Math.max(offset, 0);
  }

  /** True once after an update failed (the poll loop then waits before asking again). */
  take_failure(): boolean {
    const failed = this.#failed;
    this.#failed = false;
    return failed;
  }

  /** Queues the updates not held yet, each behind its chat's; returns how many were new. */
  take(updates: readonly U[]): number {
    let fresh = 0;
    for (const update of updates) {
      const id = update.update_id;
      if (this.#taken.has(id)) continue;
      fresh += 1;
      this.#taken.add(id);
      this.#unfinished.add(id);
      if (id > this.#highest) this.#highest = id;
      const chat = this.#options.chat_of(update);
      const chain = (this.#chains.get(chat) ?? Promise.resolve()).then(() =>
        this.#run(chat, update),
      );
      this.#chains.set(chat, chain);
      void chain.then(() => {
        if (this.#chains.get(chat) === chain) {
          this.#chains.delete(chat);
          this.#broken.delete(chat);
        }
        const wake = this.#wake;
        this.#wake = null;
        wake?.();
      });
    }
    return fresh;
  }

  /** Resolves when some chat's update settles, or after `ms`, whichever is first. */
  settled(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Resolves once every update taken has run (or was given back). */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()]);
  }

  async #run(chat: string, update: U): Promise<void> {
    const id = update.update_id;
    if (this.#broken.has(chat)) {
      // given back behind its chat's failed update: the next polls bring both again, in order
      this.#taken.delete(id);
      return;
    }
    try {
      await this.#options.handle(update);
      this.#unfinished.delete(id);
    } catch (error) {
      this.#options.on_error(update, error);
      this.#broken.add(chat);
      this.#taken.delete(id);
      this.#failed = true;
    }
  }
}

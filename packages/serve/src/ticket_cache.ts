import type { TurnTicket } from '@lich/agent';

/**
 * The tickets of recent prompts by `client_request_id`, so a prompt sent again after a reconnect
 * (the client could not tell whether the first one arrived) answers the first ticket instead of
 * running twice. Bounded: the oldest entries go first.
 */
export class TicketCache {
  readonly #limit: number;
  readonly #tickets = new Map<string, Promise<TurnTicket>>();

  constructor(limit = 1024) {
    this.#limit = limit;
  }

  /**
   * The ticket of `client_request_id` in `session_id`: the one already given, or `make()`'s.
   * A failed `make` is forgotten, so the prompt can be sent again.
   */
  get_or_make(
    session_id: string,
    client_request_id: string,
    make: () => Promise<TurnTicket>,
  ): Promise<TurnTicket> {
    const key = `${session_id}\u0000${client_request_id}`;
    const known = this.#tickets.get(key);
    if (known !== undefined) return known;
    const made = make();
    this.#tickets.set(key, made);
    made.catch(() => {
      if (this.#tickets.get(key) === made) this.#tickets.delete(key);
    });
    while (this.#tickets.size > this.#limit) {
      const oldest = this.#tickets.keys().next().value;
      if (oldest === undefined) break;
      this.#tickets.delete(oldest);
    }
    return made;
  }
}

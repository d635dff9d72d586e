/** One limit a reservation is checked against. */
export interface BudgetLimit {
  /** Names what is limited, e.g. `session:<id>`, `day:<work dir>:2026-12-05`, `sender:telegram:42:2026-12-05`. */
  key: string;
  /** Dollars that may be spent under the key. */
  limit_usd: number;
  /** What was spent under the key before this ledger knew it (a resumed session); default 0. */
  spent_before_usd?: number;
}

/** A reservation the ledger granted: settled once the call's real cost is known. */
export interface BudgetReservation {
  readonly id: string;
  readonly keys: readonly string[];
  readonly amount_usd: number;
}

/** What `reserve` answers. */
export type ReserveResult =
  | { ok: true; reservation: BudgetReservation; used: Record<string, number> }
  | { ok: false; key: string; spent_usd: number; reserved_usd: number; limit_usd: number };

/**
 * Where budgets are kept: in memory for one process (`MemoryBudgetLedger`), in PostgreSQL for
 * many nodes (`@lich/store-postgres`).
 *
 * Contract:
 * - `reserve` is atomic over all its limits: either `amount_usd` is added to the reserved sum of
 *   every key, or to none, and it is refused when spent + reserved + amount would pass a limit
 *   of one key; so callers in parallel can never overshoot together;
 * - `settle` releases a reservation and adds the real cost to the spent sum of its keys; settling
 *   twice does nothing the second time;
 * - `used` answers the share (spent + reserved) / limit after the grant, per key.
 */
export interface BudgetLedger {
  reserve(limits: readonly BudgetLimit[], amount_usd: number): Promise<ReserveResult>;
  settle(reservation: BudgetReservation, cost_usd: number): Promise<void>;
  /** The dollars spent under `key` (settled calls only). */
  spent(key: string): Promise<number>;
}

/** A ledger in this process's memory: the runs of one Agent (a gateway's chats) share it. */
export class MemoryBudgetLedger implements BudgetLedger {
  readonly #spent = new Map<string, number>();
  readonly #reserved = new Map<string, number>();
  readonly #open = new Set<string>();
  #next = 0;

  async reserve(limits: readonly BudgetLimit[], amount_usd: number): Promise<ReserveResult> {
    for (const limit of limits) {
      if (!this.#spent.has(limit.key)) this.#spent.set(limit.key, limit.spent_before_usd ?? 0);
    }
    // one synchronous pass: no other reservation can interleave
    for (const limit of limits) {
      const spent = this.#spent.get(limit.key) ?? 0;
      const reserved = this.#reserved.get(limit.key) ?? 0;
      if (spent + reserved + amount_usd > limit.limit_usd) {
        return {
          ok: false,
          key: limit.key,
          spent_usd: spent,
          reserved_usd: reserved,
          limit_usd: limit.limit_usd,
        };
      }
    }
    const used: Record<string, number> = {};
    for (const limit of limits) {
      const reserved = (this.#reserved.get(limit.key) ?? 0) + amount_usd;
      this.#reserved.set(limit.key, reserved);
      used[limit.key] = ((this.#spent.get(limit.key) ?? 0) + reserved) / limit.limit_usd;
    }
    this.#next += 1;
    const id = `mem-${this.#next}`;
    this.#open.add(id);
    return {
      ok: true,
      reservation: { id, keys: limits.map((limit) => limit.key), amount_usd },
      used,
    };
  }

  async settle(reservation: BudgetReservation, cost_usd: number): Promise<void> {
    if (!this.#open.delete(reservation.id)) return;
    for (const key of reservation.keys) {
      this.#reserved.set(key, Math.max(0, (this.#reserved.get(key) ?? 0) - reservation.amount_usd));
      this.#spent.set(key, (this.#spent.get(key) ?? 0) + cost_usd);
    }
  }

  async spent(key: string): Promise<number> {
    return this.#spent.get(key) ?? 0;
  }
}

import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** One limit a reservation is checked against (the shape of `@lich/agent`'s `BudgetLimit`). */
export interface PgBudgetLimit {
  key: string;
  limit_usd: number;
  spent_before_usd?: number;
}

/** A granted reservation (the shape of `@lich/agent`'s `BudgetReservation`). */
export interface PgBudgetReservation {
  readonly id: string;
  readonly keys: readonly string[];
  readonly amount_usd: number;
}

/** What `reserve` answers (the shape of `@lich/agent`'s `ReserveResult`). */
export type PgReserveResult =
  | { ok: true; reservation: PgBudgetReservation; used: Record<string, number> }
  | { ok: false; key: string; spent_usd: number; reserved_usd: number; limit_usd: number };

/**
 * The reservation: lock the call's keys (in key order, so two calls never deadlock), and add the
 * amount to all of them only when every one stays within its limit. One statement, so it is
 * atomic whatever the other nodes do: under READ COMMITTED, `FOR UPDATE` waits for a concurrent
 * reservation and then reads its result.
 */
const RESERVE = `
WITH wanted AS (
  SELECT * FROM unnest($1::text[], $2::float8[]) AS w(key, limit_usd)
), locked AS (
  SELECT b.key, b.spent_usd, b.reserved_usd, w.limit_usd
  FROM budget_ledger b JOIN wanted w ON w.key = b.key
  ORDER BY b.key
  FOR UPDATE OF b
), verdict AS (
  SELECT count(*) = cardinality($1::text[])
     AND bool_and(spent_usd + reserved_usd + $3 <= limit_usd) AS fits
  FROM locked
)
UPDATE budget_ledger b
SET reserved_usd = b.reserved_usd + $3, updated_at = now()
FROM verdict
WHERE verdict.fits AND b.key = ANY($1::text[])
RETURNING b.key, b.spent_usd, b.reserved_usd`;

/**
 * `@lich/agent`'s `BudgetLedger` on PostgreSQL (the `budget_ledger` table): every node of a
 * gateway (or many `lich serve`) on one database reserves against the same sums, so a sender's
 * daily budget holds across nodes.
 *
 * Contract: that of `BudgetLedger`; `reserve` is one atomic statement (after an idempotent insert
 * of keys not seen yet); a node that dies between reserve and settle leaves its reservation held
 * (the limit errs on the safe side).
 */
export class PgBudgetLedger {
  readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async reserve(limits: readonly PgBudgetLimit[], amount_usd: number): Promise<PgReserveResult> {
    const keys = limits.map((limit) => limit.key);
    // keys in one order everywhere: two nodes inserting the same new keys never deadlock
    const sorted = [...limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    await this.pool.query(
      `INSERT INTO budget_ledger (key, spent_usd)
       SELECT * FROM unnest($1::text[], $2::float8[])
       ON CONFLICT (key) DO NOTHING`,
      [
        sorted.map((limit) => limit.key),
        sorted.map((limit) => Math.max(0, limit.spent_before_usd ?? 0)),
      ],
    );
    const granted = await this.pool.query<{ key: string; spent_usd: number; reserved_usd: number }>(
      RESERVE,
      [keys, limits.map((limit) => limit.limit_usd), amount_usd],
    );
    if (granted.rowCount === keys.length && keys.length > 0) {
      const used: Record<string, number> = {};
      for (const row of granted.rows) {
        const limit = limits.find((item) => item.key === row.key)?.limit_usd ?? 1;
        used[row.key] = (row.spent_usd + row.reserved_usd) / limit;
      }
      return { ok: true, reservation: { id: randomUUID(), keys, amount_usd }, used };
    }
    // refused: say which limit, from what the ledger holds now
    const now = await this.pool.query<{ key: string; spent_usd: number; reserved_usd: number }>(
      'SELECT key, spent_usd, reserved_usd FROM budget_ledger WHERE key = ANY($1::text[])',
      [keys],
    );
    const over =
      limits.find((limit) => {
        const row = now.rows.find((item) => item.key === limit.key);
        return row === undefined || row.spent_usd + row.reserved_usd + amount_usd > limit.limit_usd;
      }) ?? limits[0];
    const row = now.rows.find((item) => item.key === over?.key);
    return {
      ok: false,
      key: over?.key ?? '',
      spent_usd: row?.spent_usd ?? 0,
      reserved_usd: row?.reserved_usd ?? 0,
      limit_usd: over?.limit_usd ?? 0,
    };
  }

  async settle(reservation: PgBudgetReservation, cost_usd: number): Promise<void> {
    if (reservation.keys.length === 0) return;
    // the rows locked in key order, as `reserve` locks them, so the two never deadlock
    await this.pool.query(
      `WITH locked AS (
         SELECT key FROM budget_ledger WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE
       )
       UPDATE budget_ledger b
       SET reserved_usd = greatest(0, b.reserved_usd - $2),
           spent_usd = b.spent_usd + $3,
           updated_at = now()
       FROM locked
       WHERE b.key = locked.key`,
      [reservation.keys, reservation.amount_usd, cost_usd],
    );
  }

  async spent(key: string): Promise<number> {
    const result = await this.pool.query<{ spent_usd: number }>(
      'SELECT spent_usd FROM budget_ledger WHERE key = $1',
      [key],
    );
    return result.rows[0]?.spent_usd ?? 0;
  }
}

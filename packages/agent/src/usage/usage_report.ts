import { add_usage, compare_text, empty_usage, type Usage } from '@lich/core';
import type { SessionRecord } from '@lich/session';
import { add_cost } from '../cost/model_price.js';
import type { PriceBook } from '../cost/price_book.js';

/** The model calls of one group (a day, a model, a session) summed. */
export interface UsageRow {
  /** The day (`2026-12-05`, UTC), `<provider>/<model>`, or the session id. */
  key: string;
  calls: number;
  usage: Usage;
  /** Dollars; null when a call of the group had no known price. */
  cost_usd: number | null;
  /** The share of the input read from the prompt cache (0 when there was no input). */
  cache_hit_ratio: number;
}

/** `lich usage`: tokens and dollars in total, by day, by model and by session. */
export interface UsageReport {
  total: UsageRow;
  by_day: UsageRow[];
  by_model: UsageRow[];
  by_session: UsageRow[];
  /** How many session files were read. */
  sessions: number;
}

/** The records of one session file. */
export interface SessionRecords {
  id: string;
  records: readonly SessionRecord[];
}

class Rows {
  readonly #rows = new Map<string, { calls: number; usage: Usage; cost_usd: number | null }>();

  add(key: string, usage: Usage, cost: number | null): void {
    const row = this.#rows.get(key) ?? { calls: 0, usage: empty_usage(), cost_usd: 0 };
    row.calls += 1;
    row.usage = add_usage(row.usage, usage);
    row.cost_usd = add_cost(row.cost_usd, cost);
    this.#rows.set(key, row);
  }

  list(): UsageRow[] {
    return [...this.#rows.entries()].map(([key, row]) => to_row(key, row));
  }
}

function to_row(
  key: string,
  row: { calls: number; usage: Usage; cost_usd: number | null },
): UsageRow {
  const read = row.usage.cache_read_tokens ?? 0;
  return {
    key,
    calls: row.calls,
    usage: row.usage,
    cost_usd: row.cost_usd,
    cache_hit_ratio: row.usage.input_tokens > 0 ? read / row.usage.input_tokens : 0,
  };
}

/**
 * Sums the model calls recorded in session files: each `message` record of source `llm` with its
 * usage, priced by the `cost_usd` it was recorded with, or by `prices` for a session recorded
 * before prices were. Pure; never throws.
 *
 * Contract: the total's tokens are the sum of the sessions' `usage_total`, and its dollars the
 * sum of their costs (null when one call had no known price); days are UTC; rows are sorted (days
 * oldest first, models and sessions by cost, highest first).
 */
export function usage_report(
  sessions: readonly SessionRecords[],
  prices: PriceBook | undefined,
): UsageReport {
  const by_day = new Rows();
  const by_model = new Rows();
  const by_session = new Rows();
  const total = new Rows();
  for (const session of sessions) {
    for (const record of session.records) {
      if (record.type !== 'message' || record.source !== 'llm' || record.usage === undefined)
        continue;
      const cost =
        record.cost_usd !== undefined
          ? record.cost_usd
          : (prices?.cost(record.usage, record.provider, record.model) ?? null);
      by_day.add(record.at.slice(0, 10), record.usage, cost);
      by_model.add(`${record.provider ?? '?'}/${record.model ?? '?'}`, record.usage, cost);
      by_session.add(session.id, record.usage, cost);
      total.add('total', record.usage, cost);
    }
  }
  const by_cost = (a: UsageRow, b: UsageRow) =>
    (b.cost_usd ?? Number.POSITIVE_INFINITY) - (a.cost_usd ?? Number.POSITIVE_INFINITY) ||
    b.usage.input_tokens - a.usage.input_tokens;
  return {
    total: total.list()[0] ?? to_row('total', { calls: 0, usage: empty_usage(), cost_usd: 0 }),
    by_day: by_day.list().sort((a, b) => compare_text(a.key, b.key)),
    by_model: by_model.list().sort(by_cost),
    by_session: by_session.list().sort(by_cost),
    sessions: sessions.length,
  };
}

import type pg from 'pg';

/**
 * How long answered messages and sent reply chunks are kept (7 days). A platform that redelivers
 * a message after its row was pruned would have it answered again, so this must exceed every
 * platform's redelivery window (and the bus's dedupe window, 15 min).
 */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** How often a node prunes (hourly), the first time a minute after it opened its store. */
export const DEFAULT_PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Rows deleted per statement, so one prune never holds many row locks for long. */
const BATCH = 5_000;

/** What a prune deleted. */
export interface PruneResult {
  inbound: number;
  outbox: number;
  /** Notices told (`claim_notice`) longer ago: one may be told again. */
  notices: number;
}

/**
 * Deletes the messages marked done and the reply chunks marked sent that are older than
 * `older_than_ms` (by when they were logged or written), in batches, and the notices told before
 * then. Pending messages and unsent
 * chunks are never touched, whatever their age; nor are `conversations` rows (they hold each
 * conversation's next `seq`, epoch and session). Safe to run on several nodes at once.
 */
export async function prune_done(pool: pg.Pool, older_than_ms: number): Promise<PruneResult> {
  const seconds = Math.max(0, older_than_ms) / 1000;
  const result: PruneResult = { inbound: 0, outbox: 0, notices: 0 };
  for (;;) {
    const deleted = await pool.query(
      `DELETE FROM inbound WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM inbound
         WHERE done AND logged_at < now() - make_interval(secs => $1)
         LIMIT ${BATCH} FOR UPDATE SKIP LOCKED))`,
      [seconds],
    );
    result.inbound += deleted.rowCount ?? 0;
    if ((deleted.rowCount ?? 0) < BATCH) break;
  }
  for (;;) {
    const deleted = await pool.query(
      `DELETE FROM outbox WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM outbox
         WHERE sent_at IS NOT NULL AND created_at < now() - make_interval(secs => $1)
         LIMIT ${BATCH} FOR UPDATE SKIP LOCKED))`,
      [seconds],
    );
    result.outbox += deleted.rowCount ?? 0;
    if ((deleted.rowCount ?? 0) < BATCH) break;
  }
  const notices = await pool.query(
    'DELETE FROM gateway_notices WHERE told_at < now() - make_interval(secs => $1)',
    [seconds],
  );
  result.notices = notices.rowCount ?? 0;
  return result;
}

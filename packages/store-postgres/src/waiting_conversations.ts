import type pg from 'pg';

/**
 * The conversations with a message (or a reply chunk) waiting longer than `ms` that no node is
 * running now (its claim's advisory lock is not held), oldest first: what a node that died left,
 * or a busy node has not reached (`GatewayStore.waiting_longer_than`).
 */
export async function waiting_longer_than(pool: pg.Pool, ms: number): Promise<string[]> {
  // oldest first, and none that a node is running now (its claim is held): those are no use
  // to a node looking for work
  const { rows } = await pool.query<{ conversation_key: string }>(
    `WITH w AS (
       SELECT conversation_key, min(logged_at) AS since FROM inbound WHERE NOT done
       GROUP BY conversation_key HAVING min(logged_at) < now() - make_interval(secs => $1)
       UNION ALL
       SELECT conversation_key, min(created_at) FROM outbox WHERE sent_at IS NULL
       GROUP BY conversation_key HAVING min(created_at) < now() - make_interval(secs => $1)),
     k AS (
       SELECT conversation_key, min(since) AS since,
         hashtextextended('lich:conversation:' || conversation_key, 0) AS lock_key
       FROM w GROUP BY conversation_key)
     SELECT conversation_key FROM k
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid = ((k.lock_key >> 32) & 4294967295)::oid
         AND l.objid = (k.lock_key & 4294967295)::oid)
     ORDER BY since`,
    [ms / 1000],
  );
  return rows.map((row) => row.conversation_key);
}

/**
 * What each node of a `bench:gateway-pg` run did, read from the database: triggers (bench-only,
 * on the run's own database) note every claim of a conversation and every message marked done,
 * with the node that held it. Per node: the claims it took (and how many of them took a
 * conversation another node had run), the messages it answered, the conversations it answered in,
 * its slots' busy share (each run's time from claim to done over slots × the run's time), and when
 * it answered its last message.
 */
import { open_pool } from '@lich/store-postgres';

const TRIGGERS = `
CREATE TABLE bench_events (
  kind text NOT NULL, conversation_key text NOT NULL, holder text, epoch bigint, seq bigint,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE FUNCTION bench_claim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF NEW.epoch > 0 AND (TG_OP = 'INSERT' OR NEW.epoch IS DISTINCT FROM OLD.epoch) THEN
    INSERT INTO bench_events (kind, conversation_key, holder, epoch)
    VALUES ('claim', NEW.conversation_key, NEW.holder, NEW.epoch);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER bench_claim AFTER INSERT OR UPDATE ON conversations
  FOR EACH ROW EXECUTE FUNCTION bench_claim();
CREATE FUNCTION bench_done() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  IF NEW.done AND NOT OLD.done THEN
    INSERT INTO bench_events (kind, conversation_key, holder, epoch, seq)
    SELECT 'done', NEW.conversation_key, holder, epoch, NEW.seq
    FROM conversations WHERE conversation_key = NEW.conversation_key;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER bench_done AFTER UPDATE ON inbound FOR EACH ROW EXECUTE FUNCTION bench_done();
`;

/** Adds the tracing triggers to a migrated database. */
export async function install_trace(url: string): Promise<void> {
  const pool = open_pool({ url, max_connections: 1 });
  try {
    await pool.query(TRIGGERS);
  } finally {
    await pool.end();
  }
}

/** One node's share of a run. */
export interface NodeTrace {
  node: string;
  claims: number;
  /** Claims of a conversation whose previous claim was another node's. */
  taken_over: number;
  messages: number;
  conversations: number;
  /** Sum of claim-to-done times, seconds. */
  busy_s: number;
  /** Seconds from the first claim (any node) to this node's last done. */
  last_done_s: number;
}

/** Reads the per-node figures, nodes ordered by name. */
export async function read_trace(url: string): Promise<{ span_s: number; nodes: NodeTrace[] }> {
  const pool = open_pool({ url, max_connections: 1 });
  try {
    const { rows } = await pool.query<{
      node: string;
      claims: string;
      taken_over: string;
      messages: string;
      conversations: string;
      busy_s: number;
      last_done_s: number;
      span_s: number;
    }>(`
      WITH t0 AS (SELECT min(at) AS at FROM bench_events),
      claims AS (
        SELECT *, lag(holder) OVER (PARTITION BY conversation_key ORDER BY epoch) AS previous
        FROM bench_events WHERE kind = 'claim'),
      runs AS (
        SELECT c.holder, c.at AS claimed, min(d.at) AS done
        FROM claims c JOIN bench_events d
          ON d.kind = 'done' AND d.conversation_key = c.conversation_key AND d.epoch = c.epoch
        GROUP BY c.holder, c.conversation_key, c.epoch, c.at)
      SELECT c.holder AS node, count(*) AS claims,
        count(*) FILTER (WHERE c.previous IS NOT NULL AND c.previous <> c.holder) AS taken_over,
        (SELECT count(*) FROM bench_events d WHERE d.kind = 'done' AND d.holder = c.holder) AS messages,
        (SELECT count(DISTINCT conversation_key) FROM bench_events d
          WHERE d.kind = 'done' AND d.holder = c.holder) AS conversations,
        (SELECT coalesce(sum(extract(epoch FROM r.done - r.claimed)), 0)::float8
          FROM runs r WHERE r.holder = c.holder) AS busy_s,
        (SELECT extract(epoch FROM max(d.at) - (SELECT at FROM t0))::float8 FROM bench_events d
          WHERE d.kind = 'done' AND d.holder = c.holder) AS last_done_s,
        (SELECT extract(epoch FROM max(at) - min(at))::float8 FROM bench_events) AS span_s
      FROM claims c GROUP BY c.holder ORDER BY c.holder`);
    return {
      span_s: rows[0]?.span_s ?? 0,
      nodes: rows.map((row) => ({
        node: row.node,
        claims: Number(row.claims),
        taken_over: Number(row.taken_over),
        messages: Number(row.messages),
        conversations: Number(row.conversations),
        busy_s: row.busy_s,
        last_done_s: row.last_done_s ?? 0,
      })),
    };
  } finally {
    await pool.end();
  }
}

/** The trace as lines for stderr, with each node's slot occupancy over the span. */
export function format_trace(trace: { span_s: number; nodes: NodeTrace[] }, slots: number): string {
  const lines = trace.nodes.map(
    (node, index) =>
      `    node ${index}: ${node.messages} msgs in ${node.conversations} conv, ${node.claims} claims ` +
      `(${node.taken_over} taken over), run ${((1000 * node.busy_s) / Math.max(1, node.messages)).toFixed(0)} ms avg, slots busy ${((100 * node.busy_s) / (slots * trace.span_s)).toFixed(0)}%, ` +
      `last done at ${node.last_done_s.toFixed(1)} s of ${trace.span_s.toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}

import {
  type AppendResult,
  type Claim,
  type ConversationLock,
  type ConversationLog,
  FencedError,
  type GatewayStore,
  type InboundMessage,
  type IngressLease,
  type LoggedMessage,
  type Outbox,
  type OutboxEntry,
} from '@lich/gateway';
import type pg from 'pg';
import { type DatabaseOptions, open_pool } from './database.js';
import { acquire_lease } from './ingress_lease.js';
import { assert_migrated } from './migrate.js';
import { NODE_KEY, NodeConnection } from './node_connection.js';
import { pg_json } from './pg_json.js';
import {
  DEFAULT_PRUNE_EVERY_MS,
  DEFAULT_RETENTION_MS,
  type PruneResult,
  prune_done,
} from './retention.js';
import { waiting_longer_than } from './waiting_conversations.js';

/**
 * The NOTIFY channel of wake-up hints. Payload `mine\n<node id>\n<conversation key>`: a message
 * was logged for a conversation that node worked last. Payload `new\n\n<conversation key>`: a
 * message was logged for a conversation no node has worked yet, for any node with a free slot.
 */
export const WAKE_CHANNEL = 'lich_gateway_wake';

/** The advisory lock key of a conversation (64-bit hash of its key, with a namespace). */
const CLAIM_KEY = "hashtextextended('lich:conversation:' || $1, 0)";

/** How long a message waits before a node other than its conversation's live holder may take it. */
export const DEFAULT_STEAL_AFTER_MS = 1_500;

/** NOTIFY carries < 8000 bytes; a longer key (never seen in practice) is not hinted. */
const NOTIFY_LIMIT = 7_000;

/** `SELECT … FOR SHARE` of the conversation row when `claim` is its current one. */
const CURRENT_CLAIM =
  'SELECT 1 FROM conversations WHERE conversation_key = $1 AND epoch = $2 FOR SHARE';

interface InboundRow {
  seq: string;
  message: InboundMessage;
  logged_at: Date;
}

/** The conversation log in the `inbound` and `conversations` tables. */
export class PgConversationLog implements ConversationLog {
  constructor(
    readonly pool: pg.Pool,
    /** This node's id: a message of a conversation another node holds is left to that node. */
    readonly node_id: string,
  ) {}

  /**
   * Takes the conversation's next seq (its row lock makes concurrent appends take turns) and
   * inserts the message; a message already there (`UNIQUE (platform, account,
   * platform_message_id)`, from any node) rolls the seq back and resolves `{ appended: false }`.
   * The commit sends a NOTIFY hint.
   */
  async append(message: InboundMessage): Promise<AppendResult> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const known = await client.query(
        'SELECT 1 FROM inbound WHERE platform = $1 AND account = $2 AND platform_message_id = $3',
        [message.platform, message.account, message.platform_message_id],
      );
      if (known.rowCount !== 0) {
        await client.query('ROLLBACK');
        return { appended: false };
      }
      const { rows } = await client.query<{ seq: string; holder: string | null }>(
        `INSERT INTO conversations (conversation_key, next_seq) VALUES ($1, 2)
         ON CONFLICT (conversation_key) DO UPDATE SET next_seq = conversations.next_seq + 1
         RETURNING next_seq - 1 AS seq, holder`,
        [message.conversation_key],
      );
      const seq = Number(rows[0]?.seq);
      const holder = rows[0]?.holder ?? null;
      let elsewhere =
        holder !== null &&
        holder !== this.node_id &&
        message.conversation_key.length <= NOTIFY_LIMIT;
      if (elsewhere) {
        // the holder is alive while it holds its node lock; a dead one's messages are this node's
        const probe = await client.query<{ dead: boolean }>(
          `SELECT pg_try_advisory_xact_lock(${NODE_KEY}) AS dead`,
          [holder],
        );
        if (probe.rows[0]?.dead === true) elsewhere = false;
      }
      // the holder is hinted; a conversation nobody worked yet goes to whichever node is free
      let hint: string | null = null;
      if (elsewhere) hint = `mine\n${holder}\n${message.conversation_key}`;
      else if (holder === null && message.conversation_key.length <= NOTIFY_LIMIT) {
        hint = `new\n\n${message.conversation_key}`;
      }
      const inserted = await client.query(
        `INSERT INTO inbound (platform, account, platform_message_id, conversation_key, seq, message)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING
         RETURNING (CASE WHEN $7::text IS NOT NULL THEN pg_notify('${WAKE_CHANNEL}', $7::text) END)`,
        [
          message.platform,
          message.account,
          message.platform_message_id,
          message.conversation_key,
          seq,
          pg_json(message),
          hint,
        ],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK'); // a concurrent redelivery on another node won
        return { appended: false };
      }
      await client.query('COMMIT');
      return elsewhere ? { appended: true, seq, elsewhere } : { appended: true, seq };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async pending(conversation_key: string): Promise<LoggedMessage[]> {
    const { rows } = await this.pool.query<InboundRow>(
      `SELECT seq, message, logged_at FROM inbound
       WHERE conversation_key = $1 AND NOT done ORDER BY seq`,
      [conversation_key],
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      message: row.message,
      logged_at: row.logged_at.getTime(),
    }));
  }

  async mark_done(conversation_key: string, seq: number, claim: Claim): Promise<void> {
    const { rows } = await this.pool.query<{ held: string }>(
      `WITH c AS (${CURRENT_CLAIM}),
       u AS (UPDATE inbound SET done = true
             WHERE conversation_key = $1 AND seq <= $3 AND NOT done AND EXISTS (SELECT 1 FROM c))
       SELECT count(*) AS held FROM c`,
      [conversation_key, claim.epoch, seq],
    );
    if (Number(rows[0]?.held) === 0) throw new FencedError(claim);
  }

  async pending_conversations(): Promise<string[]> {
    const { rows } = await this.pool.query<{ conversation_key: string }>(
      'SELECT DISTINCT conversation_key FROM inbound WHERE NOT done',
    );
    return rows.map((row) => row.conversation_key);
  }

  async session_of(conversation_key: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ session_id: string | null }>(
      'SELECT session_id FROM conversations WHERE conversation_key = $1',
      [conversation_key],
    );
    return rows[0]?.session_id ?? null;
  }

  async bind_session(conversation_key: string, session_id: string, claim: Claim): Promise<void> {
    const result = await this.pool.query(
      'UPDATE conversations SET session_id = $3 WHERE conversation_key = $1 AND epoch = $2',
      [conversation_key, claim.epoch, session_id],
    );
    if (result.rowCount === 0) throw new FencedError(claim);
  }
}

/**
 * Claims as advisory locks held by the node connection: a claim dies with it (a crashed node's
 * conversations are free at once), and each claim bumps the conversation's `epoch` by one, the
 * fencing token every write under the claim is checked against.
 */
export class PgConversationLock implements ConversationLock {
  readonly #held = new Map<string, { epoch: number; generation: number }>();

  constructor(
    readonly pool: pg.Pool,
    readonly node: NodeConnection,
    /** A conversation another live node worked last is taken only once a message waited this long. */
    readonly steal_after_ms: number = DEFAULT_STEAL_AFTER_MS,
  ) {
    node.on_lost(() => this.#held.clear());
  }

  async claim(conversation_key: string): Promise<Claim | null> {
    // advisory locks nest within one connection: the node must not take its own twice
    if (this.#held.has(conversation_key)) return null;
    // one round trip: whether this node may take it (nobody worked it, this node did, that node is
    // dead, or a message waited past steal_after_ms), the lock, and the epoch bumped with it
    const { rows, generation } = await this.node.query<{ locked: boolean; epoch: string | null }>(
      `WITH c AS (SELECT holder FROM conversations WHERE conversation_key = $1),
       allowed AS (SELECT CASE
         WHEN NOT EXISTS (SELECT 1 FROM c WHERE holder IS NOT NULL AND holder <> $2) THEN true
         WHEN least(
           (SELECT min(logged_at) FROM inbound WHERE conversation_key = $1 AND NOT done),
           (SELECT min(created_at) FROM outbox WHERE conversation_key = $1 AND sent_at IS NULL)
         ) < now() - make_interval(secs => $3) THEN true
         ELSE pg_try_advisory_xact_lock(hashtextextended('lich:node:' || (SELECT holder FROM c), 0))
       END AS ok),
       l AS (SELECT CASE WHEN (SELECT ok FROM allowed)
                    THEN pg_try_advisory_lock(${CLAIM_KEY}) ELSE false END AS locked),
       b AS (INSERT INTO conversations (conversation_key, epoch, holder)
             SELECT $1, 1, $2 FROM l WHERE l.locked
             ON CONFLICT (conversation_key)
             DO UPDATE SET epoch = conversations.epoch + 1, holder = $2
             RETURNING epoch)
       SELECT (SELECT locked FROM l) AS locked, (SELECT epoch FROM b) AS epoch`,
      [conversation_key, this.node.id, this.steal_after_ms / 1000],
    );
    if (rows[0]?.locked !== true) return null;
    const epoch = Number(rows[0]?.epoch);
    if (generation !== this.node.generation) return null; // the lock went with the connection
    this.#held.set(conversation_key, { epoch, generation });
    return { conversation_key, epoch };
  }

  async holds(claim: Claim): Promise<boolean> {
    const held = this.#held.get(claim.conversation_key);
    if (held === undefined || held.epoch !== claim.epoch) return false;
    if (held.generation !== this.node.generation) return false;
    const { rows } = await this.pool.query<{ epoch: string }>(
      'SELECT epoch FROM conversations WHERE conversation_key = $1',
      [claim.conversation_key],
    );
    return Number(rows[0]?.epoch) === claim.epoch;
  }

  /**
   * Releases the lock. No hint goes out: the node itself looks at the log again after a release,
   * and a conversation left waiting is found by the other nodes' polls.
   */
  async release(claim: Claim): Promise<void> {
    const held = this.#held.get(claim.conversation_key);
    if (held === undefined || held.epoch !== claim.epoch) return;
    this.#held.delete(claim.conversation_key);
    if (held.generation !== this.node.generation) return;
    await this.node
      .query(`SELECT pg_advisory_unlock(${CLAIM_KEY})`, [claim.conversation_key])
      .catch(() => undefined); // a lost connection released it already
  }
}

interface OutboxRow {
  entry: OutboxEntry;
}

/** Reply chunks in the `outbox` table, keyed by their idempotency key. */
export class PgOutbox implements Outbox {
  constructor(readonly pool: pg.Pool) {}

  async put(entries: readonly OutboxEntry[], claim: Claim): Promise<void> {
    const { rows } = await this.pool.query<{ held: string }>(
      `WITH c AS (${CURRENT_CLAIM}),
       i AS (INSERT INTO outbox (key, conversation_key, seq, chunk_index, entry)
             SELECT e->>'key', $1, (e->>'seq')::bigint, (e->>'index')::integer, e
             FROM jsonb_array_elements($3::jsonb) AS e
             WHERE EXISTS (SELECT 1 FROM c)
             ON CONFLICT (key) DO NOTHING)
       SELECT count(*) AS held FROM c`,
      [claim.conversation_key, claim.epoch, pg_json(entries)],
    );
    if (Number(rows[0]?.held) === 0) throw new FencedError(claim);
  }

  async unsent(conversation_key: string): Promise<OutboxEntry[]> {
    const { rows } = await this.pool.query<OutboxRow>(
      `SELECT entry FROM outbox WHERE conversation_key = $1 AND sent_at IS NULL
       ORDER BY seq, chunk_index`,
      [conversation_key],
    );
    return rows.map((row) => row.entry);
  }

  async mark_sent(key: string): Promise<void> {
    await this.pool.query('UPDATE outbox SET sent_at = now() WHERE key = $1 AND sent_at IS NULL', [
      key,
    ]);
  }

  async conversations_with_unsent(): Promise<string[]> {
    const { rows } = await this.pool.query<{ conversation_key: string }>(
      'SELECT DISTINCT conversation_key FROM outbox WHERE sent_at IS NULL',
    );
    return rows.map((row) => row.conversation_key);
  }
}

/** A gateway store on PostgreSQL, with the pool and node connection it runs on. */
export interface PostgresGatewayStore extends GatewayStore {
  readonly shared: true;
  readonly pool: pg.Pool;
  readonly node: NodeConnection;
  /** The first claim of `key` among all nodes on the database wins (`gateway_notices`). */
  claim_notice(key: string): Promise<boolean>;
  /**
   * Deletes answered messages, sent chunks and told notices older than `older_than_ms`
   * (default: the store's `retention_ms`); what the store's timer runs.
   */
  prune(older_than_ms?: number): Promise<PruneResult>;
}

/**
 * Opens the gateway store of a database that `lich db migrate` has brought up to date (rejects,
 * saying to run it, when it has not).
 *
 * Contract: every node of a gateway opens its own store on the same database; together they
 * answer each message once and each conversation in order (see the package README). `close`
 * releases the node's claims and leases and ends its connections; idempotent.
 */
export async function open_postgres_gateway_store(
  options: DatabaseOptions & {
    /** A conversation another live node works is taken once a message waited this long (1.5 s). */
    steal_after_ms?: number;
    /**
     * Answered messages and sent reply chunks older than this are deleted (7 days); keep it past
     * every platform's redelivery window: a message redelivered after its row went is answered
     * again.
     */
    retention_ms?: number;
    /** How often this node prunes, the first time after a minute at most (1 h); 0 for never. */
    prune_every_ms?: number;
  },
): Promise<PostgresGatewayStore> {
  const pool = open_pool(options);
  const node = new NodeConnection(options);
  try {
    await assert_migrated(pool, options.url);
  } catch (error) {
    await pool.end().catch(() => undefined);
    await node.close();
    throw error;
  }
  let closing: Promise<void> | null = null;
  const retention_ms = options.retention_ms ?? DEFAULT_RETENTION_MS;
  const every = options.prune_every_ms ?? DEFAULT_PRUNE_EVERY_MS;
  let pruning: Promise<unknown> | null = null;
  let prune_timer: NodeJS.Timeout | null = null;
  const prune_later = (delay_ms: number) => {
    prune_timer = setTimeout(() => {
      // a failed prune (the database away for a moment) is tried again at the next tick
      pruning = prune_done(pool, retention_ms)
        .catch(() => undefined)
        .finally(() => {
          pruning = null;
          if (closing === null) prune_later(every);
        });
    }, delay_ms);
    prune_timer.unref();
  };
  if (every > 0) prune_later(Math.min(every, 60_000));
  return {
    shared: true,
    pool,
    node,
    prune: (older_than_ms = retention_ms) => prune_done(pool, older_than_ms),
    answer: async (entries: readonly OutboxEntry[], seq: number, claim: Claim) => {
      const { rows } = await pool.query<{ held: string }>(
        `WITH c AS (${CURRENT_CLAIM}),
         i AS (INSERT INTO outbox (key, conversation_key, seq, chunk_index, entry)
               SELECT e->>'key', $1, (e->>'seq')::bigint, (e->>'index')::integer, e
               FROM jsonb_array_elements($3::jsonb) AS e
               WHERE EXISTS (SELECT 1 FROM c)
               ON CONFLICT (key) DO NOTHING),
         u AS (UPDATE inbound SET done = true
               WHERE conversation_key = $1 AND seq <= $4 AND NOT done AND EXISTS (SELECT 1 FROM c))
         SELECT count(*) AS held FROM c`,
        [claim.conversation_key, claim.epoch, pg_json(entries), seq],
      );
      if (Number(rows[0]?.held) === 0) throw new FencedError(claim);
    },
    log: new PgConversationLog(pool, node.id),
    lock: new PgConversationLock(pool, node, options.steal_after_ms),
    outbox: new PgOutbox(pool),
    waiting_longer_than: (ms: number) => waiting_longer_than(pool, ms),
    on_wake: (listener) => {
      let unsubscribe: (() => void) | null = null;
      let cancelled = false;
      node
        .listen(WAKE_CHANNEL, (payload) => {
          const [kind, holder, ...rest] = payload.split('\n');
          const key = rest.join('\n');
          if (key === '') return;
          if (kind === 'mine' && holder === node.id) listener(key, 'mine');
          else if (kind === 'new') listener(key, 'new');
        })
        .then(
          (off) => {
            if (cancelled) off();
            else unsubscribe = off;
          },
          () => undefined, // no hints: polling still finds the work
        );
      return () => {
        cancelled = true;
        unsubscribe?.();
      };
    },
    claim_notice: async (key: string) => {
      const inserted = await pool.query(
        'INSERT INTO gateway_notices (key) VALUES ($1) ON CONFLICT (key) DO NOTHING',
        [key],
      );
      return inserted.rowCount === 1;
    },
    acquire_lease: (
      name: string,
      lease_options?: { signal?: AbortSignal },
    ): Promise<IngressLease> => acquire_lease(pool, node, name, lease_options),
    close: () => {
      closing ??= (async () => {
        if (prune_timer !== null) clearTimeout(prune_timer);
        await pruning;
        await node.close();
        await pool.end().catch(() => undefined);
      })();
      return closing;
    },
  };
}

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
import { NodeConnection } from './node_connection.js';

/** The NOTIFY channel that hints a conversation has work: its payload is the conversation key. */
export const WAKE_CHANNEL = 'lich_gateway_wake';

/** The advisory lock key of a conversation (64-bit hash of its key, with a namespace). */
const CLAIM_KEY = "hashtextextended('lich:conversation:' || $1, 0)";

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
  constructor(readonly pool: pg.Pool) {}

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
      const { rows } = await client.query<{ seq: string }>(
        `INSERT INTO conversations (conversation_key, next_seq) VALUES ($1, 2)
         ON CONFLICT (conversation_key) DO UPDATE SET next_seq = conversations.next_seq + 1
         RETURNING next_seq - 1 AS seq`,
        [message.conversation_key],
      );
      const seq = Number(rows[0]?.seq);
      const inserted = await client.query(
        `INSERT INTO inbound (platform, account, platform_message_id, conversation_key, seq, message)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING
         RETURNING (SELECT pg_notify($7, $8))`,
        [
          message.platform,
          message.account,
          message.platform_message_id,
          message.conversation_key,
          seq,
          JSON.stringify(message),
          WAKE_CHANNEL,
          message.conversation_key.length <= NOTIFY_LIMIT ? message.conversation_key : '',
        ],
      );
      if (inserted.rowCount === 0) {
        await client.query('ROLLBACK'); // a concurrent redelivery on another node won
        return { appended: false };
      }
      await client.query('COMMIT');
      return { appended: true, seq };
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
  ) {
    node.on_lost(() => this.#held.clear());
  }

  async claim(conversation_key: string): Promise<Claim | null> {
    // advisory locks nest within one connection: the node must not take its own twice
    if (this.#held.has(conversation_key)) return null;
    const { rows, generation } = await this.node.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_lock(${CLAIM_KEY}) AS locked`,
      [conversation_key],
    );
    if (rows[0]?.locked !== true) return null;
    try {
      const bumped = await this.node.query<{ epoch: string }>(
        `INSERT INTO conversations (conversation_key, epoch) VALUES ($1, 1)
         ON CONFLICT (conversation_key) DO UPDATE SET epoch = conversations.epoch + 1
         RETURNING epoch`,
        [conversation_key],
      );
      if (bumped.generation !== generation) return null; // the lock went with the connection
      const epoch = Number(bumped.rows[0]?.epoch);
      this.#held.set(conversation_key, { epoch, generation });
      return { conversation_key, epoch };
    } catch (error) {
      await this.node
        .query(`SELECT pg_advisory_unlock(${CLAIM_KEY})`, [conversation_key])
        .catch(() => undefined);
      throw error;
    }
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

  /** Releases the lock; when messages wait, hints the other nodes that the conversation is free. */
  async release(claim: Claim): Promise<void> {
    const held = this.#held.get(claim.conversation_key);
    if (held === undefined || held.epoch !== claim.epoch) return;
    this.#held.delete(claim.conversation_key);
    if (held.generation !== this.node.generation) return;
    await this.node
      .query(
        `SELECT pg_advisory_unlock(${CLAIM_KEY}),
                CASE WHEN EXISTS (SELECT 1 FROM inbound WHERE conversation_key = $1 AND NOT done)
                     AND length($1) <= ${NOTIFY_LIMIT}
                THEN pg_notify('${WAKE_CHANNEL}', $1) END`,
        [claim.conversation_key],
      )
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
      [claim.conversation_key, claim.epoch, JSON.stringify(entries)],
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
  options: DatabaseOptions,
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
  return {
    shared: true,
    pool,
    node,
    log: new PgConversationLog(pool),
    lock: new PgConversationLock(pool, node),
    outbox: new PgOutbox(pool),
    on_wake: (listener) => {
      let unsubscribe: (() => void) | null = null;
      let cancelled = false;
      node
        .listen(WAKE_CHANNEL, (payload) => {
          if (payload !== '') listener(payload);
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
    acquire_lease: (
      name: string,
      lease_options?: { signal?: AbortSignal },
    ): Promise<IngressLease> => acquire_lease(pool, node, name, lease_options),
    close: () => {
      closing ??= (async () => {
        await node.close();
        await pool.end().catch(() => undefined);
      })();
      return closing;
    },
  };
}

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { client_config, type DatabaseOptions } from './database.js';

type NotificationListener = (payload: string) => void;

/**
 * The one connection of a node that holds its advisory locks (conversation claims, leases) and
 * listens for notifications. Every lock it holds dies with it: when it is lost (the server
 * restarted, the network dropped, the backend was terminated) `generation` grows, the `on_lost`
 * listeners run, and it reconnects in the background while anyone listens.
 *
 * Contract: `query` runs on the current connection (connecting first when there is none) and
 * resolves with the rows and the generation it ran in; a lost connection never throws out of an
 * event handler; `close` is idempotent.
 */
export class NodeConnection {
  /** This node's name in the database (`conversations.holder`): host, pid and a random part. */
  readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #options: DatabaseOptions;
  #client: pg.Client | null = null;
  #connecting: Promise<pg.Client> | null = null;
  #generation = 0;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  readonly #channels = new Map<string, Set<NotificationListener>>();
  readonly #lost = new Set<() => void>();
  /** The statement last queued: one runs at a time on the one client (S8: pg 9 will refuse more). */
  #tail: Promise<unknown> = Promise.resolve();

  constructor(options: DatabaseOptions) {
    this.#options = options;
  }

  /** Grows by one each time the connection is lost: locks taken in an older generation are gone. */
  get generation(): number {
    return this.#generation;
  }

  /** Runs `listener` whenever the connection is lost. Returns the unsubscribe. */
  on_lost(listener: () => void): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }

  async #connect(): Promise<pg.Client> {
    if (this.#closed) throw new Error('the node connection is closed');
    if (this.#client !== null) return this.#client;
    this.#connecting ??= (async () => {
      const client = new pg.Client({
        ...client_config(this.#options),
        application_name: `${this.#options.application_name ?? 'lich'} node`,
      });
      client.on('error', () => this.#drop(client));
      client.on('end', () => this.#drop(client));
      client.on('notification', (message) => {
        for (const listener of this.#channels.get(message.channel) ?? []) {
          try {
            listener(message.payload ?? '');
          } catch {
            // a listener's failure is its own
          }
        }
      });
      try {
        await client.connect();
        // held for the connection's life: other nodes tell this node is alive by it
        await client.query(`SELECT pg_advisory_lock(${NODE_KEY})`, [this.id]);
        for (const channel of this.#channels.keys()) {
          await client.query(`LISTEN ${quote_ident(channel)}`);
        }
      } catch (error) {
        client.removeAllListeners('end');
        await client.end().catch(() => undefined);
        throw error;
      }
      if (this.#closed) {
        await client.end().catch(() => undefined);
        throw new Error('the node connection is closed');
      }
      this.#client = client;
      return client;
    })().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  #drop(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.#generation += 1;
    client.end().catch(() => undefined);
    for (const listener of this.#lost) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
    this.#reconnect_soon(250);
  }

  /** Reconnects in the background while channels are listened to, so hints keep coming. */
  #reconnect_soon(delay_ms: number): void {
    if (this.#closed || this.#channels.size === 0 || this.#retry !== null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#connect().catch(() => this.#reconnect_soon(Math.min(delay_ms * 2, 5_000)));
    }, delay_ms);
    this.#retry.unref();
  }

  /**
   * Runs one statement on the node connection, after the statements queued before it: pg runs one
   * query at a time per client anyway, and calling it while one runs is deprecated (S8).
   */
  query<Row extends pg.QueryResultRow>(
    sql: string,
    params: unknown[] = [],
  ): Promise<{ rows: Row[]; generation: number }> {
    return this.#in_turn(async () => {
      const client = await this.#connect();
      const generation = this.#generation;
      const result = await client.query<Row>(sql, params);
      return { rows: result.rows, generation };
    });
  }

  /** Runs `step` once every step queued before it has settled. */
  #in_turn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(step, step);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Calls `listener` with the payload of each NOTIFY on `channel`. Returns the unsubscribe. */
  async listen(channel: string, listener: NotificationListener): Promise<() => void> {
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
      await this.#in_turn(async () => {
        const client = this.#client;
        if (client !== null) await client.query(`LISTEN ${quote_ident(channel)}`);
        else await this.#connect();
      });
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /** Closes the connection: its locks are released by the server. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    await this.#connecting?.catch(() => undefined);
    const client = this.#client;
    this.#client = null;
    this.#channels.clear();
    this.#lost.clear();
    if (client !== null) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }

  /** Test hook: the server-side process id of the connection (to terminate it). */
  async backend_pid(): Promise<number> {
    const { rows } = await this.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0]?.pid ?? 0;
  }
}

/** The advisory lock key of a node id, held by the node while its connection lives. */
export const NODE_KEY = "hashtextextended('lich:node:' || $1, 0)";

/** A channel name as an SQL identifier. */
function quote_ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

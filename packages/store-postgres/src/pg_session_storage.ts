import { content_text, type Message, type Usage } from '@lich/core';
import {
  type AppendOptions,
  apply_record,
  assert_session_id,
  type CreateSessionOptions,
  conversation_of,
  empty_state,
  new_session_id,
  type OpenSessionOptions,
  one_line,
  SESSION_FORMAT_VERSION,
  SessionError,
  type SessionHandle,
  type SessionProblem,
  type SessionRecord,
  type SessionRecordInput,
  type SessionState,
  type SessionStorage,
  type SessionSummary,
  state_of,
  TITLE_LIMIT,
} from '@lich/session';
import type pg from 'pg';
import { type DatabaseOptions, open_pool, redact_url } from './database.js';
import { assert_migrated } from './migrate.js';
import { pg_json } from './pg_json.js';

interface SessionRow {
  id: string;
  created: Date;
  updated: Date;
  work_dir: string;
  model: string;
  title: string;
  runs: number;
  usage: Usage;
  bytes: string;
  parent_session_id: string | null;
  /** `cost_total_usd` of the last `run_end` record (JSON: a number, null, or none). */
  cost_total_usd: unknown;
}

function error_text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The title a listing shows: the last `title` record's, else the first user message. */
function title_of(state: SessionState): string {
  if (state.title !== undefined) return one_line(state.title, TITLE_LIMIT);
  const first = state.slots.find((message) => message?.role === 'user');
  return one_line(first?.role === 'user' ? content_text(first.content) : '', TITLE_LIMIT);
}

/**
 * A session's records in `session_records`, appended under the epoch the handle was opened with:
 * a later `open` of the same session (another node taking it over) bumps the epoch, and this
 * handle's appends are refused from then on (`locked`), so a node that lost a session cannot
 * write to it.
 */
class PgSessionHandle implements SessionHandle {
  readonly id: string;
  readonly path: string;
  readonly state: SessionState;
  readonly problems: readonly SessionProblem[] = [];
  readonly #pool: pg.Pool;
  readonly #epoch: number;
  readonly #now: () => Date;
  #next_seq: number;
  #queue: Promise<void> = Promise.resolve();
  #failed_writes = 0;
  #closed = false;

  constructor(init: {
    id: string;
    path: string;
    pool: pg.Pool;
    epoch: number;
    state: SessionState;
    next_seq: number;
    now: () => Date;
  }) {
    this.id = init.id;
    this.path = init.path;
    this.#pool = init.pool;
    this.#epoch = init.epoch;
    this.state = init.state;
    this.#next_seq = init.next_seq;
    this.#now = init.now;
  }

  get failed_writes(): number {
    return this.#failed_writes;
  }

  get closed(): boolean {
    return this.#closed;
  }

  append(input: SessionRecordInput, options: AppendOptions = {}): Promise<void> {
    if (this.#closed) {
      return Promise.reject(
        new SessionError('closed', `session ${this.id} is closed; open it again to append`, {
          path: this.path,
        }),
      );
    }
    const { type, at, ...rest } = input;
    const record = {
      v: SESSION_FORMAT_VERSION,
      type,
      at: at ?? this.#now().toISOString(),
      ...rest,
    } as SessionRecord;
    let text: string;
    try {
      text = pg_json(record);
    } catch (error) {
      return Promise.reject(
        new SessionError(
          'invalid_record',
          `cannot serialise a ${type} record: ${error_text(error)}`,
          {
            path: this.path,
            cause: error,
          },
        ),
      );
    }
    apply_record(this.state, record);
    const seq = this.#next_seq;
    this.#next_seq += 1;
    const summary = {
      title: title_of(this.state),
      runs: this.state.runs,
      usage: JSON.stringify(this.state.usage_total),
    };
    const task = this.#queue.then(() => this.#write(record, seq, text, summary, options.signal));
    this.#queue = task.catch(() => undefined);
    return task;
  }

  async #write(
    record: SessionRecord,
    seq: number,
    text: string,
    summary: { title: string; runs: number; usage: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (signal?.aborted) {
      this.#failed_writes += 1;
      throw new SessionError('aborted', `appending a ${record.type} record was aborted`, {
        path: this.path,
        cause: signal.reason,
      });
    }
    let written: number;
    try {
      const result = await this.#pool.query(
        `WITH s AS (SELECT id FROM sessions WHERE id = $1 AND epoch = $2 FOR UPDATE),
         i AS (INSERT INTO session_records (session_id, seq, record)
               SELECT $1, $3, $4::jsonb FROM s)
         UPDATE sessions SET updated = $5, title = $6, runs = $7, usage = $8::jsonb,
                records = records + 1, bytes = bytes + $9
         FROM s WHERE sessions.id = s.id`,
        [
          this.id,
          this.#epoch,
          seq,
          text,
          record.at,
          summary.title,
          summary.runs,
          summary.usage,
          Buffer.byteLength(text) + 1,
        ],
      );
      written = result.rowCount ?? 0;
    } catch (error) {
      this.#failed_writes += 1;
      throw new SessionError(
        'write_failed',
        `could not write a ${record.type} record to session ${this.id}: ${error_text(error)}`,
        { path: this.path, cause: error },
      );
    }
    if (written === 0) {
      this.#failed_writes += 1;
      throw new SessionError(
        'locked',
        `session ${this.id} was opened by another process since this one opened it; this handle can no longer write (open it again)`,
        { path: this.path },
      );
    }
  }

  async flush(options: AppendOptions = {}): Promise<void> {
    await this.#queue;
    if (options.signal?.aborted) {
      throw new SessionError('aborted', `flushing session ${this.id} was aborted`, {
        path: this.path,
        cause: options.signal.reason,
      });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
  }
}

/** Options of `PostgresSessionStorage`. */
export interface PostgresSessionStorageOptions {
  /** The pool to use (its owner closes it), instead of opening one from `url`. */
  pool?: pg.Pool;
  /** The clock, for tests. */
  now?: () => Date;
}

/**
 * Sessions in the `sessions` and `session_records` tables: the `SessionStorage` of `lich serve
 * --store postgres://…` and of gateway nodes sharing a database.
 *
 * Contract (besides `SessionStorage`'s): `open` takes the session over (bumping its epoch): an
 * earlier handle of it, in this process or another, is refused every later append with `locked`
 * rather than the open being refused; `delete` removes a session whether or not a handle is open.
 */
export class PostgresSessionStorage implements SessionStorage {
  readonly location: string;
  readonly pool: pg.Pool;
  readonly #now: () => Date;
  readonly #own_pool: boolean;

  constructor(database: DatabaseOptions, options: PostgresSessionStorageOptions = {}) {
    this.location = redact_url(database.url);
    this.#own_pool = options.pool === undefined;
    this.pool = options.pool ?? open_pool(database);
    this.#now = options.now ?? (() => new Date());
  }

  #path(id: string): string {
    return `${this.location}#session=${id}`;
  }

  async create(options: CreateSessionOptions): Promise<SessionHandle> {
    const now = this.#now();
    const id = options.id ?? new_session_id(now);
    assert_session_id(id);
    options.signal?.throwIfAborted();
    let inserted: number;
    try {
      const result = await this.pool.query(
        `INSERT INTO sessions (id, created, updated, work_dir, model, parent_session_id)
         VALUES ($1, $2, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING`,
        [id, now.toISOString(), options.work_dir, options.model, options.parent_session_id ?? null],
      );
      inserted = result.rowCount ?? 0;
    } catch (error) {
      throw new SessionError(
        'not_writable',
        `cannot create session ${id} in ${this.location}: ${error_text(error)}`,
        { path: this.#path(id), cause: error },
      );
    }
    if (inserted === 0) {
      throw new SessionError('exists', `session ${id} already exists in ${this.location}`, {
        path: this.#path(id),
      });
    }
    const handle = new PgSessionHandle({
      id,
      path: this.#path(id),
      pool: this.pool,
      epoch: 1,
      state: empty_state(),
      next_seq: 1,
      now: this.#now,
    });
    try {
      await handle.append({
        type: 'session_start',
        at: now.toISOString(),
        id,
        created: now.toISOString(),
        work_dir: options.work_dir,
        model: options.model,
        lich_version: options.lich_version,
        ...(options.parent_session_id === undefined
          ? {}
          : { parent_session_id: options.parent_session_id }),
      });
    } catch (error) {
      await this.pool.query('DELETE FROM sessions WHERE id = $1', [id]).catch(() => undefined);
      throw error;
    }
    return handle;
  }

  async #records(id: string): Promise<SessionRecord[]> {
    const { rows } = await this.pool.query<{ record: SessionRecord }>(
      'SELECT record FROM session_records WHERE session_id = $1 ORDER BY seq',
      [id],
    );
    const records = rows.map((row) => row.record);
    const newer = records.find((record) => record.v > SESSION_FORMAT_VERSION);
    if (newer !== undefined) {
      throw new SessionError(
        'newer_version',
        `session ${id} was written by a newer Lich (format ${newer.v}); update Lich to read it`,
        { path: this.#path(id) },
      );
    }
    return records;
  }

  async open(id: string, options: OpenSessionOptions = {}): Promise<SessionHandle> {
    assert_session_id(id);
    options.signal?.throwIfAborted();
    const bumped = await this.pool.query<{ epoch: string }>(
      'UPDATE sessions SET epoch = epoch + 1 WHERE id = $1 RETURNING epoch',
      [id],
    );
    const epoch = bumped.rows[0]?.epoch;
    if (epoch === undefined) {
      throw new SessionError('not_found', `no session ${id} in ${this.location}`, {
        path: this.#path(id),
      });
    }
    const records = await this.#records(id);
    return new PgSessionHandle({
      id,
      path: this.#path(id),
      pool: this.pool,
      epoch: Number(epoch),
      state: state_of(records),
      next_seq: records.length + 1,
      now: this.#now,
    });
  }

  async read(id: string, options: { signal?: AbortSignal } = {}): Promise<Message[]> {
    assert_session_id(id);
    options.signal?.throwIfAborted();
    const exists = await this.pool.query('SELECT 1 FROM sessions WHERE id = $1', [id]);
    if (exists.rowCount === 0) {
      throw new SessionError('not_found', `no session ${id} in ${this.location}`, {
        path: this.#path(id),
      });
    }
    return conversation_of(state_of(await this.#records(id)));
  }

  async list(options: { signal?: AbortSignal } = {}): Promise<SessionSummary[]> {
    options.signal?.throwIfAborted();
    // the cost as of the last finished run, as the file store lists it: read from the newest
    // run_end record, found by walking the primary key backwards from the session's last record
    const { rows } = await this.pool.query<SessionRow>(
      `SELECT s.id, s.created, s.updated, s.work_dir, s.model, s.title, s.runs, s.usage, s.bytes,
              s.parent_session_id, e.cost_total_usd
       FROM sessions s
       LEFT JOIN LATERAL (
         SELECT r.record -> 'cost_total_usd' AS cost_total_usd
         FROM session_records r
         WHERE r.session_id = s.id AND r.record ->> 'type' = 'run_end'
         ORDER BY r.seq DESC LIMIT 1
       ) e ON true
       ORDER BY s.updated DESC, s.id DESC`,
    );
    return rows.map((row) => ({
      id: row.id,
      path: this.#path(row.id),
      title: row.title,
      created: row.created.toISOString(),
      updated: row.updated.toISOString(),
      runs: row.runs,
      usage: row.usage,
      // no run_end yet, or a call without a price: unknown rather than 0
      cost_usd:
        typeof row.cost_total_usd === 'number' && Number.isFinite(row.cost_total_usd)
          ? row.cost_total_usd
          : null,
      model: row.model,
      work_dir: row.work_dir,
      size: Number(row.bytes),
      ...(row.parent_session_id === null ? {} : { parent_session_id: row.parent_session_id }),
    }));
  }

  async delete(id: string): Promise<boolean> {
    assert_session_id(id);
    const result = await this.pool.query('DELETE FROM sessions WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Closes the pool when this storage opened it. Idempotent. */
  async close(): Promise<void> {
    if (this.#own_pool && !this.pool.ended) await this.pool.end();
  }
}

/**
 * Opens the session storage of a migrated database (rejects, saying to run `lich db migrate`,
 * when it is not).
 */
export async function open_postgres_session_storage(
  database: DatabaseOptions,
  options: PostgresSessionStorageOptions = {},
): Promise<PostgresSessionStorage> {
  const storage = new PostgresSessionStorage(database, options);
  try {
    await assert_migrated(storage.pool, database.url);
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { type DatabaseOptions, open_pool, redact_url } from './database.js';

/** The folder of the SQL migrations shipped with the package (`migrations/NNN_name.sql`). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/', import.meta.url));

/** A constant of the advisory lock that serialises migrations of one database. */
const MIGRATION_LOCK = 0x11c4_0001;

/** One migration file. */
export interface Migration {
  /** `001_gateway_and_sessions`: the file name without `.sql`. */
  version: string;
  sql: string;
}

/** What `migrate` did. */
export interface MigrateResult {
  /** The versions applied by this call, in order (empty when the database was up to date). */
  applied: string[];
  /** Every version the database has now. */
  current: string[];
}

/** The shipped migrations, in file-name order. */
export async function read_migrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => ({
      version: name.replace(/\.sql$/, ''),
      sql: await readFile(join(dir, name), 'utf8'),
    })),
  );
}

/**
 * Brings the database's schema up to date: each shipped migration not yet in `schema_migrations`
 * runs in its own transaction and is recorded there.
 *
 * Contract: idempotent (a second run applies nothing); safe to run from several nodes at once (an
 * advisory lock makes them take turns); a failing migration is rolled back whole and rejects,
 * naming it, with the migrations before it kept.
 */
export async function migrate(
  target: DatabaseOptions | pg.Pool,
  options: { migrations?: Migration[] } = {},
): Promise<MigrateResult> {
  const own = !('query' in target);
  const pool = own ? open_pool({ ...target, max_connections: 1 }) : target;
  const migrations = options.migrations ?? (await read_migrations());
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if (own) await pool.end();
    const where = own ? redact_url((target as DatabaseOptions).url) : 'the database';
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot migrate ${where}: ${reason}`, { cause: error });
  }
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version text PRIMARY KEY,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const done = new Set(
        (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map(
          (row) => row.version,
        ),
      );
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        try {
          await client.query('BEGIN');
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [
            migration.version,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          const reason = error instanceof Error ? error.message : String(error);
          throw new Error(`migration ${migration.version} failed: ${reason}`, { cause: error });
        }
        applied.push(migration.version);
        done.add(migration.version);
      }
      return { applied, current: [...done].sort() };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } catch (error) {
    if (own && error instanceof Error && !error.message.startsWith('migration ')) {
      const where = redact_url((target as DatabaseOptions).url);
      throw new Error(`cannot migrate ${where}: ${error.message}`, { cause: error });
    }
    throw error;
  } finally {
    client.release();
    if (own) await pool.end();
  }
}

/**
 * Rejects with a message saying to run `lich db migrate` when the database lacks a shipped
 * migration; resolves otherwise.
 */
export async function assert_migrated(pool: pg.Pool, url: string): Promise<void> {
  const wanted = (await read_migrations()).map((migration) => migration.version);
  let have = new Set<string>();
  try {
    const rows = await pool.query<{ version: string }>('SELECT version FROM schema_migrations');
    have = new Set(rows.rows.map((row) => row.version));
  } catch (error) {
    if ((error as { code?: string }).code !== '42P01') throw error; // undefined_table
  }
  const missing = wanted.filter((version) => !have.has(version));
  if (missing.length > 0) {
    throw new Error(
      `the database ${redact_url(url)} is not migrated (missing ${missing.join(', ')}): run lich db migrate --database-url <url>`,
    );
  }
}

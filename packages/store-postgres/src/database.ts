import pg from 'pg';

/** How a store connects. */
export interface DatabaseOptions {
  /** `postgres://user:password@host:port/database` (libpq's URL form, as `psql` takes it). */
  url: string;
  /** Connections in the pool, besides the node connection (default 10). */
  max_connections?: number;
  /** `application_name` the server shows for these connections (default `lich`). */
  application_name?: string;
}

/** True for a `postgres://` or `postgresql://` URL: what makes a config name this store. */
export function is_postgres_url(value: unknown): value is string {
  return typeof value === 'string' && /^postgres(?:ql)?:\/\//i.test(value);
}

/** `url` without its password, for messages and `SessionStorage.location`. */
export function redact_url(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** The connection settings of `pg` for `options`. */
export function client_config(options: DatabaseOptions): pg.ClientConfig {
  return {
    connectionString: options.url,
    application_name: options.application_name ?? 'lich',
    // a node that cannot reach the database fails its request instead of hanging forever
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  };
}

/**
 * A pool of connections to the database. Its idle connections do not keep the process alive.
 * Errors of idle connections (the server restarted) are swallowed: the next query reconnects.
 */
export function open_pool(options: DatabaseOptions): pg.Pool {
  const pool = new pg.Pool({
    ...client_config(options),
    max: options.max_connections ?? 10,
    idleTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A real PostgreSQL database for a test file: on the server `LICH_TEST_DATABASE_URL` names when it
 * is set (CI), otherwise on a server this process starts itself from the system's `initdb` and
 * `pg_ctl` in a temp folder, on a free port, as a non-root user when run as root. Each call makes a
 * database of its own (parallel test files never share tables) and drops it on `close`.
 * Import it from `@lich/testkit/postgres`: it loads `pg`, which other tests need not pay for.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Requirement, require_or_skip } from './requirement.js';

/** A database made for one test file. */
export interface TestDatabase {
  /** `postgres://…/<the database>`. */
  url: string;
  /** The server's own URL (its maintenance database), for making more databases. */
  server_url: string;
  /** Drops the database (and stops the server when this process started it). */
  close(): Promise<void>;
}

/** Where the system's PostgreSQL programs are: `LICH_PG_BIN`, else the newest Debian-style folder. */
function pg_bin_dir(): string {
  const given = process.env.LICH_PG_BIN;
  if (given !== undefined && given !== '') {
    if (existsSync(join(given, 'initdb'))) return given;
    throw new Error(`no initdb in LICH_PG_BIN (${given})`);
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  const which = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim() !== '') return which.stdout.trim();
  throw new Error(
    'no PostgreSQL server to test against: set LICH_TEST_DATABASE_URL, or install PostgreSQL ' +
      '(initdb and pg_ctl; set LICH_PG_BIN to their folder when it is not found)',
  );
}

async function free_port(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface LocalServer {
  url: string;
  stop(): void;
}

/** Starts a throwaway server; as root, as the `postgres` user (or `nobody`), which initdb needs. */
async function start_local_server(): Promise<LocalServer> {
  const bin = pg_bin_dir();
  const dir = mkdtempSync(join(tmpdir(), 'lich-pg-'));
  const data = join(dir, 'data');
  const root = userInfo().uid === 0;
  let run_as: string | null = null;
  if (root) {
    run_as = spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
    const uid = Number(execFileSync('id', ['-u', run_as], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', run_as], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (program: string, args: string[]) => {
    const command = run_as === null ? join(bin, program) : 'runuser';
    const full = run_as === null ? args : ['-u', run_as, '--', join(bin, program), ...args];
    const result = spawnSync(command, full, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) {
      throw new Error(`${program} failed (${result.status}): ${result.stderr || result.stdout}`);
    }
  };
  const port = await free_port();
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
    'start',
  ]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // already down
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}

let local: Promise<LocalServer> | null = null;
let users = 0;

/** The URL of `url`'s server with another database. */
export function with_database(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Makes a new, empty database for the calling test file (`lich_test_<random>`), on
 * `LICH_TEST_DATABASE_URL`'s server or on one started here (shared by the calls of one process,
 * stopped when the last database is closed).
 */
export async function start_test_database(): Promise<TestDatabase> {
  const given = process.env.LICH_TEST_DATABASE_URL;
  let server_url: string;
  let own: LocalServer | null = null;
  if (given !== undefined && given !== '') server_url = given;
  else {
    local ??= start_local_server();
    own = await local;
    server_url = own.url;
  }
  users += 1;
  const name = `lich_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server_url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: with_database(server_url, name),
    server_url,
    close: async () => {
      const client = new pg.Client({ connectionString: server_url });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
      users -= 1;
      if (own !== null && users === 0) {
        own.stop();
        local = null;
      }
    },
  };
}

/**
 * Whether the tests that need PostgreSQL run here: with `LICH_TEST_DATABASE_URL`, or where the
 * system's `initdb` can start a throwaway server. Elsewhere they are skipped with the reason,
 * unless `LICH_REQUIRE_POSTGRES=1` (CI), where a missing server is a failure.
 */
export function postgres_or_skip(): Requirement {
  let available = (process.env.LICH_TEST_DATABASE_URL ?? '') !== '';
  if (!available) {
    try {
      pg_bin_dir();
      available = true;
    } catch {
      available = false;
    }
  }
  return require_or_skip(
    'PostgreSQL',
    available,
    'LICH_REQUIRE_POSTGRES',
    'neither LICH_TEST_DATABASE_URL nor a PostgreSQL installation (initdb) is here',
  );
}

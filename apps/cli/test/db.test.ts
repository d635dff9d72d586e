/**
 * `lich db migrate` and `lich serve --store` against a real PostgreSQL server (`LICH_TEST_DATABASE_URL`, or one the test
 * starts): the migrations run from empty, then again without a change; the URL is required.
 */
import { start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

let database: TestDatabase;
let sandbox: Sandbox;

beforeAll(async () => {
  database = await start_test_database();
  sandbox = await make_sandbox();
}, 60_000);

afterAll(async () => {
  await sandbox?.cleanup();
  await database?.close();
});

describe('lich db migrate', () => {
  it('creates the tables of an empty database, then finds it up to date', async () => {
    const options = { cwd: sandbox.work_dir, env: sandbox.env };
    const first = await run_lich(['db', 'migrate', '--database-url', database.url], options);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^applied 001_gateway_and_sessions, 002_conversation_holder, 003_retention to postgres:\/\//,
    );
    const again = await run_lich(['db', 'migrate'], {
      ...options,
      env: { ...sandbox.env, LICH_DATABASE_URL: database.url },
    });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /is up to date \(001_gateway_and_sessions, 002_conversation_holder, 003_retention\)/,
    );
  });

  it('needs a database URL, and says so', async () => {
    const result = await run_lich(['db', 'migrate'], { cwd: sandbox.work_dir, env: sandbox.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--database-url <url> or LICH_DATABASE_URL/);
  });

  it('says what failed when the database cannot be reached', async () => {
    const url = new URL(database.url);
    url.port = '9';
    const result = await run_lich(['db', 'migrate', '--database-url', url.toString()], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot migrate postgres:\/\/.*ECONNREFUSED/);
  });
});

describe('lich serve --store', () => {
  it('keeps sessions in the database it names, and refuses one that is not migrated', async () => {
    const env = openai_env(sandbox, 'http://127.0.0.1:9');
    const served = await run_lich(['serve', '--stdio', '--store', database.url], {
      cwd: sandbox.work_dir,
      env,
      input: '',
    });
    expect(served.stderr).toMatch(/lich serve: sessions in postgres:\/\//);
    expect(served.code).toBe(0);
    const bare = new URL(database.url);
    bare.pathname = '/postgres_unmigrated_nowhere';
    const refused = await run_lich(['serve', '--stdio', '--store', bare.toString()], {
      cwd: sandbox.work_dir,
      env,
      input: '',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/postgres_unmigrated_nowhere/);
  });
});

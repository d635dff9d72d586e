/**
 * `lich db migrate` and `lich serve --store` against a real PostgreSQL server (`LICH_TEST_DATABASE_URL`, or one the test
 * starts): the migrations run from empty, then again without a change; the URL is required; a
 * real WebSocket client's session outlives the server that made it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Message } from '@lich/core';
import { decode_webhook_secret, signed_headers } from '@lich/gateway-webhook';
import { read_token_file } from '@lich/serve';
import { LichClient, ws_transport } from '@lich/serve/client';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
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
        /^applied 001_gateway_and_sessions, 002_conversation_holder, 003_retention, 004_budget_ledger, 005_session_parent, 006_gateway_notices to postgres:\/\//,
      );
      const again = await run_lich(['db', 'migrate'], {
        ...options,
        env: { ...sandbox.env, LICH_DATABASE_URL: database.url },
      });
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(
        /is up to date \(001_gateway_and_sessions, 002_conversation_holder, 003_retention, 004_budget_ledger, 005_session_parent, 006_gateway_notices\)/,
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

  describe('lich serve --store over WebSocket', () => {
    let model: FakeServer;

    beforeAll(async () => {
      await run_lich(['db', 'migrate', '--database-url', database.url], {
        cwd: sandbox.work_dir,
        env: sandbox.env,
      });
      model = await start_openai_server({
        respond: (request) => {
          const messages = (request.body as { messages: Message[] }).messages;
          const said = messages.filter((m) => m.role === 'user').map((m) => m.content);
          return { text: `heard: ${said.join(' | ')}` };
        },
      });
    });

    afterAll(async () => {
      await model?.close();
    });

    /** `lich serve --store <url>` on a free port; resolves its URL and token once it listens. */
    async function serve(): Promise<{ child: ChildProcess; url: string; token: string }> {
      const run_dir = join(sandbox.temp.path, 'run');
      await mkdir(run_dir, { recursive: true, mode: 0o700 });
      const child = spawn(
        process.execPath,
        [BIN, 'serve', '--port', '0', '--store', database.url],
        {
          cwd: sandbox.work_dir,
          env: { ...openai_env(sandbox, model.base_url), XDG_RUNTIME_DIR: run_dir },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr?.setEncoding('utf8').on('data', (text: string) => {
          stderr += text;
          const match = /listening on (ws:\/\/\S+)/.exec(stderr);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`lich serve exited ${code}: ${stderr}`)));
      });
      const file = await read_token_file(join(run_dir, 'lich', 'serve.json'));
      return { child, url, token: file?.token ?? '' };
    }

    async function ask(client: LichClient, session_id: string, text: string): Promise<unknown> {
      const done = new Promise<unknown>((resolve) => {
        const off = client.on_event((event) => {
          if (event.session_id === session_id && event.type === 'turn.completed') {
            off();
            resolve(event.payload.final);
          }
        });
      });
      await client.prompt(session_id, text);
      return done;
    }

    /** Rows of a query on the test database. */
    async function database_rows(sql: string): Promise<Record<string, unknown>[]> {
      const { default: pg } = await import('pg');
      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      try {
        return (await db.query(sql)).rows as Record<string, unknown>[];
      } finally {
        await db.end();
      }
    }

    async function stop(child: ChildProcess): Promise<number | null> {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    }

    it('keeps a session in the database: a second server continues it', async () => {
      const first = await serve();
      const a = await LichClient.connect({
        transport: ws_transport({ url: first.url, token: first.token }),
        reconnect: false,
      });
      const { session_id, path } = await a.request('session.new', { title: 'team' });
      expect(path).toMatch(/^postgres:\/\/.*#session=/);
      await a.subscribe(session_id);
      expect(await ask(a, session_id, 'my name is Ann')).toBe('heard: my name is Ann');
      await a.close();
      expect(await stop(first.child)).toBe(0);

      const second = await serve();
      const b = await LichClient.connect({
        transport: ws_transport({ url: second.url, token: second.token }),
        reconnect: false,
      });
      try {
        const { sessions } = await b.request('session.list');
        expect(sessions.map((info) => info.session_id)).toContain(session_id);
        await b.request('session.load', { session_id });
        await b.subscribe(session_id);
        expect(await ask(b, session_id, 'who am I?')).toBe('heard: my name is Ann | who am I?');
        const { messages } = await b.request('session.history', { session_id });
        expect(messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
          'my name is Ann',
          'who am I?',
        ]);
      } finally {
        await b.close();
      }
      expect(await stop(second.child)).toBe(0);
    }, 60_000);

    it("sees only its own folder's sessions: a gateway sharing the database keeps its conversations (S3)", async () => {
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const bot_dir = join(sandbox.temp.path, 'bot');
      await mkdir(bot_dir, { recursive: true });
      const gateway = spawn(
        process.execPath,
        [BIN, 'gateway', 'webhook', '--port', '0', '--allow-user', 'u1', '--store', database.url],
        {
          cwd: bot_dir,
          env: { ...openai_env(sandbox, model.base_url), LICH_WEBHOOK_SECRET: secret },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let gateway_log = '';
      const gateway_url = await new Promise<string>((resolve, reject) => {
        gateway.stderr?.setEncoding('utf8').on('data', (text: string) => {
          gateway_log += text;
          const match = /listening on (http:\/\/\S+)/.exec(gateway_log);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        gateway.once('exit', (code) =>
          reject(new Error(`the gateway exited ${code}: ${gateway_log}`)),
        );
      });
      const key = decode_webhook_secret(secret);
      let sent = 0;
      const say = async (text: string): Promise<Record<string, unknown>> => {
        const body = JSON.stringify({ chat_id: 'A-0', sender: { id: 'u1' }, text });
        sent += 1;
        const response = await fetch(gateway_url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...signed_headers(key, `msg_s3_${sent}`, body),
          },
          body,
        });
        return (await response.json()) as Record<string, unknown>;
      };
      const served = await serve();
      const client = await LichClient.connect({
        transport: ws_transport({ url: served.url, token: served.token }),
        reconnect: false,
      });
      try {
        expect(await say('bot message one')).toMatchObject({ status: 'answered' });
        const { sessions } = await client.request('session.list');
        // the bot's conversation is not this folder's: not listed, and cannot be loaded
        expect(sessions.some((info) => info.title === 'webhook:A-0')).toBe(false);
        expect(sessions.every((info) => info.work_dir === sandbox.work_dir)).toBe(true);
        const bot_session = (
          await database_rows(
            "SELECT session_id FROM conversations WHERE conversation_key = 'webhook:A-0'",
          )
        )[0]?.session_id;
        expect(bot_session).toBeDefined();
        await expect(
          client.request('session.load', { session_id: String(bot_session) }),
        ).rejects.toThrow(/no session|unknown/i);
        // the gateway's later turns are recorded: nothing took its session over
        expect(await say('bot message two')).toMatchObject({ status: 'answered' });
        const texts = await database_rows(
          `SELECT record->>'type' AS type FROM session_records WHERE session_id = '${String(bot_session)}'`,
        );
        expect(texts.filter((row) => row.type === 'run_start').length).toBe(2);
        expect(gateway_log).not.toMatch(/can no longer write/);
      } finally {
        await client.close();
        await stop(served.child);
        gateway.kill('SIGTERM');
      }
    }, 60_000);
  });
});

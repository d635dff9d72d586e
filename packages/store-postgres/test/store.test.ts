/**
 * The PostgreSQL stores against a real server (`LICH_TEST_DATABASE_URL`, or one started from the
 * system's initdb): migrations, the idempotent log, claims that die with their connection, the
 * fencing token on every write, the outbox, session transcripts and ingress leases.
 */
import type { InboundMessage, OutboxEntry } from '@lich/gateway';
import { FencedError } from '@lich/gateway';
import { nest_sessions, SessionError } from '@lich/session';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  migrate,
  open_postgres_gateway_store,
  open_postgres_session_storage,
  type PostgresGatewayStore,
} from '../src/index.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
  let database: TestDatabase;
  const opened: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    database = await start_test_database();
  }, 60_000);

  afterAll(async () => {
    for (const store of opened.splice(0)) await store.close();
    await database?.close();
  });

  async function store(): Promise<PostgresGatewayStore> {
    const made = await open_postgres_gateway_store({ url: database.url });
    opened.push(made);
    return made;
  }

  let counter = 0;
  function message(chat: string, text: string, id = `m${++counter}`): InboundMessage {
    return {
      platform: 'webhook',
      account: '',
      chat_id: chat,
      conversation_key: `webhook:${chat}`,
      sender: { id: 'u1', name: 'U', is_bot: false },
      is_direct: true,
      mentions_bot: false,
      text,
      attachments: [],
      platform_message_id: id,
      reply_to: null,
      sent_at: Date.now(),
    };
  }

  function entry(key: string, seq: number, text: string): OutboxEntry {
    return {
      key: `${key}#${seq}#0`,
      target: {
        platform: 'webhook',
        account: '',
        chat_id: key.split(':')[1] ?? '',
        conversation_key: key,
      },
      seq,
      reply_to: `m${seq}`,
      answers: [`m${seq}`],
      index: 0,
      count: 1,
      text,
    };
  }

  /** Ends the server-side process of a node connection, as a crash or a network cut would. */
  async function kill_node_connection(target: PostgresGatewayStore): Promise<void> {
    const pid = await target.node.backend_pid();
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
  }

  describe('migrations', () => {
    it('run from empty, then again on a migrated database without a change', async () => {
      const first = await migrate({ url: database.url });
      const all = [
        '001_gateway_and_sessions',
        '002_conversation_holder',
        '003_retention',
        '004_budget_ledger',
        '005_session_parent',
        '006_gateway_notices',
      ];
      expect(first.applied).toEqual(all);
      const again = await migrate({ url: database.url });
      expect(again).toEqual({ applied: [], current: all });
      // two nodes migrating at once take turns
      const both = await Promise.all([
        migrate({ url: database.url }),
        migrate({ url: database.url }),
      ]);
      expect(both.map((result) => result.applied)).toEqual([[], []]);
    });

    it('refuses to open an unmigrated database, saying what to run', async () => {
      const other = `${database.url.replace(/\/[^/]*$/, '')}/${database.url.split('/').pop()}x`;
      const admin = new pg.Client({ connectionString: database.server_url });
      await admin.connect();
      const name = new URL(other).pathname.slice(1);
      await admin.query(`CREATE DATABASE ${name}`);
      try {
        await expect(open_postgres_gateway_store({ url: other })).rejects.toThrow(
          /lich db migrate/,
        );
      } finally {
        await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
        await admin.end();
      }
    });
  });

  describe('the gateway store', () => {
    beforeAll(async () => {
      await migrate({ url: database.url });
    });

    it('logs a message once, whichever node it reaches, with seqs one apart', async () => {
      const a = await store();
      const b = await store();
      const first = message('log-1', 'hello', 'log-1-a');
      const results = await Promise.all([
        a.log.append(first),
        b.log.append(first),
        a.log.append(message('log-1', 'again', 'log-1-b')),
      ]);
      const appended = results.filter((result) => result.appended);
      expect(appended).toHaveLength(2);
      expect(appended.map((result) => (result.appended ? result.seq : 0)).sort()).toEqual([1, 2]);
      expect((await b.log.pending('webhook:log-1')).map((logged) => logged.seq)).toEqual([1, 2]);
      expect(await a.log.pending_conversations()).toContain('webhook:log-1');
    });

    it('lets one node claim a conversation; the claim dies with its connection', async () => {
      const a = await store();
      const b = await store();
      const claim = await a.lock.claim('webhook:claim-1');
      expect(claim).not.toBeNull();
      expect(await b.lock.claim('webhook:claim-1')).toBeNull();
      expect(await a.lock.claim('webhook:claim-1')).toBeNull(); // not twice on one node either
      if (claim === null) throw new Error('no claim');
      expect(await a.lock.holds(claim)).toBe(true);
      await kill_node_connection(a);
      let taken = await b.lock.claim('webhook:claim-1');
      for (let attempt = 0; taken === null && attempt < 50; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20)); // the server frees it as it ends
        taken = await b.lock.claim('webhook:claim-1');
      }
      expect(taken?.epoch).toBe(claim.epoch + 1);
      expect(await a.lock.holds(claim)).toBe(false);
    });

    it('refuses every write of a node whose claim was taken (the fencing token)', async () => {
      const a = await store();
      const b = await store();
      const key = 'webhook:fence-1';
      const appended = await a.log.append(message('fence-1', 'hi'));
      const seq = appended.appended ? appended.seq : 0;
      const old = await a.lock.claim(key);
      if (old === null) throw new Error('no claim');
      await kill_node_connection(a); // A is cut off, but its process goes on
      let current = await b.lock.claim(key);
      while (current === null) current = await b.lock.claim(key);
      await expect(a.outbox.put([entry(key, seq, 'stale')], old)).rejects.toSatisfy(
        FencedError.is_instance,
      );
      await expect(a.log.mark_done(key, seq, old)).rejects.toSatisfy(FencedError.is_instance);
      await expect(a.answer?.([entry(key, seq, 'stale')], seq, old)).rejects.toSatisfy(
        FencedError.is_instance,
      );
      await expect(a.log.bind_session(key, 's-stale', old)).rejects.toSatisfy(
        FencedError.is_instance,
      );
      expect(await b.outbox.unsent(key)).toEqual([]);
      expect((await b.log.pending(key)).map((logged) => logged.seq)).toEqual([seq]);
      // the current holder writes: the reply and the message done at once
      await b.answer?.([entry(key, seq, 'fresh')], seq, current);
      await b.log.bind_session(key, 's-1', current);
      expect(await a.log.session_of(key)).toBe('s-1');
      expect(await b.log.pending(key)).toEqual([]);
      expect((await b.outbox.unsent(key)).map((item) => item.text)).toEqual(['fresh']);
      // and alone, each
      await b.outbox.put([entry(key, seq, 'again')], current);
      await b.log.mark_done(key, seq, current);
      expect((await b.outbox.unsent(key)).map((item) => item.text)).toEqual(['fresh']);
    });

    it('keeps each reply chunk once and resends only what was not marked sent', async () => {
      const a = await store();
      const key = 'webhook:out-1';
      const claim = await a.lock.claim(key);
      if (claim === null) throw new Error('no claim');
      await a.outbox.put([entry(key, 2, 'second'), entry(key, 1, 'first')], claim);
      await a.outbox.put([entry(key, 1, 'recomputed')], claim); // a take-over recomputing it
      expect((await a.outbox.unsent(key)).map((item) => item.text)).toEqual(['first', 'second']);
      expect(await a.outbox.conversations_with_unsent()).toContain(key);
      await a.outbox.mark_sent(`${key}#1#0`);
      await a.outbox.mark_sent(`${key}#1#0`);
      expect((await a.outbox.unsent(key)).map((item) => item.text)).toEqual(['second']);
      await a.lock.release(claim);
    });

    it('leaves a message to the node that worked its conversation last, and hints it', async () => {
      const a = await store();
      const b = await store();
      const heard: string[] = [];
      let wake = () => {};
      const off = b.on_wake?.((key, kind) => {
        heard.push(`${kind} ${key}`);
        wake();
      });
      await b.node.query('SELECT 1'); // LISTEN is in place once the node connection answers
      const key = 'webhook:wake-1';
      const until = (text: string) =>
        new Promise<void>((resolve) => {
          wake = () => {
            if (heard.includes(text)) resolve();
          };
          wake();
        });
      expect(await a.log.append(message('wake-1', 'first'))).toEqual({ appended: true, seq: 1 });
      // nobody worked it yet: every node hears of it, and one with a free slot takes it
      await until(`new ${key}`);
      const by_b = await b.lock.claim(key);
      if (by_b === null) throw new Error('no claim');
      await b.log.mark_done(key, 1, by_b);
      await b.lock.release(by_b);
      // B worked it last: a message logged on A is B's, and B is told
      expect(await a.log.append(message('wake-1', 'second'))).toEqual({
        appended: true,
        seq: 2,
        elsewhere: true,
      });
      await until(`mine ${key}`);
      expect(heard.filter((text) => text.endsWith(key))).toEqual([`new ${key}`, `mine ${key}`]);
      expect(await a.waiting_longer_than?.(0)).toContain(key);
      // while a node runs it (holds the claim) it is nobody else's work
      const running = await b.lock.claim(key);
      if (running === null) throw new Error('no claim');
      expect(await a.waiting_longer_than?.(0)).not.toContain(key);
      await b.lock.release(running);
      off?.();
    });

    it('prunes answered messages and sent chunks past the retention, never pending work', async () => {
      const a = await store();
      const key = 'webhook:prune-1';
      const ids = ['prune-1-a', 'prune-1-b', 'prune-1-c', 'prune-1-d'];
      for (const [index, id] of ids.entries()) {
        await a.log.append(message('prune-1', `m${index}`, id));
      }
      const claim = await a.lock.claim(key);
      if (claim === null) throw new Error('no claim');
      await a.outbox.put(
        [entry(key, 1, 'one'), entry(key, 2, 'two'), entry(key, 3, 'three')],
        claim,
      );
      await a.log.mark_done(key, 3, claim);
      await a.outbox.mark_sent(`${key}#1#0`);
      await a.outbox.mark_sent(`${key}#2#0`);
      await a.lock.release(claim);
      // 1 and 2 are old and done (2's chunk sent); 3 is done but recent; 4 is old but pending
      await a.pool.query(
        `UPDATE inbound SET logged_at = now() - interval '8 days'
       WHERE conversation_key = $1 AND seq IN (1, 2, 4)`,
        [key],
      );
      await a.pool.query(
        `UPDATE outbox SET created_at = now() - interval '8 days'
       WHERE conversation_key = $1 AND seq IN (1, 3)`,
        [key],
      );
      expect(await a.prune()).toEqual({ inbound: 2, outbox: 1, notices: 0 });
      const left = await a.pool.query<{ seq: string }>(
        'SELECT seq FROM inbound WHERE conversation_key = $1 ORDER BY seq',
        [key],
      );
      expect(left.rows.map((row) => Number(row.seq))).toEqual([3, 4]);
      expect((await a.log.pending(key)).map((logged) => logged.seq)).toEqual([4]);
      // chunk 3 is old but unsent: still there to send
      expect((await a.outbox.unsent(key)).map((item) => item.text)).toEqual(['three']);
      // a kept message is still known; the conversation goes on numbering where it was
      expect(await a.log.append(message('prune-1', 'again', 'prune-1-c'))).toEqual({
        appended: false,
      });
      expect(await a.log.append(message('prune-1', 'm4', 'prune-1-e'))).toEqual({
        appended: true,
        seq: 5,
      });
      expect(await a.prune()).toEqual({ inbound: 0, outbox: 0, notices: 0 });
    });

    it('lets one node of several claim a notice, until the retention prunes it', async () => {
      const [a, b, c] = [await store(), await store(), await store()];
      const key = 'budget:day:2026-12-05';
      const claims = await Promise.all([a, b, c, a].map((node) => node.claim_notice(key)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await b.claim_notice('budget:day:2026-12-06')).toBe(true);
      await a.pool.query(
        `UPDATE gateway_notices SET told_at = now() - interval '8 days' WHERE key = $1`,
        [key],
      );
      expect(await a.prune()).toMatchObject({ notices: 1 });
      expect(await c.claim_notice(key)).toBe(true);
    });

    it('prunes on a timer of its own', async () => {
      const writer = await store();
      const key = 'webhook:prune-2';
      await writer.log.append(message('prune-2', 'hello', 'prune-2-a'));
      const claim = await writer.lock.claim(key);
      if (claim === null) throw new Error('no claim');
      await writer.log.mark_done(key, 1, claim);
      await writer.lock.release(claim);
      await writer.pool.query(
        `UPDATE inbound SET logged_at = now() - interval '1 hour' WHERE conversation_key = $1`,
        [key],
      );
      const pruner = await open_postgres_gateway_store({
        url: database.url,
        retention_ms: 60_000,
        prune_every_ms: 20,
      });
      opened.push(pruner);
      const count = async () =>
        Number(
          (
            await writer.pool.query<{ n: string }>(
              'SELECT count(*) AS n FROM inbound WHERE conversation_key = $1',
              [key],
            )
          ).rows[0]?.n,
        );
      const deadline = Date.now() + 10_000;
      while ((await count()) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await count()).toBe(0);
      await pruner.close();
    });

    it('gives an ingress lease to one node at a time, and to the next when it is lost', async () => {
      const a = await store();
      const b = await store();
      const lease = await a.acquire_lease?.('telegram:bot');
      if (lease === undefined) throw new Error('no lease');
      const waiting = b.acquire_lease?.('telegram:bot');
      let taken = false;
      void waiting?.then(() => {
        taken = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(taken).toBe(false);
      await kill_node_connection(a);
      await lease.lost;
      const next = await waiting;
      expect(next?.epoch).toBe(lease.epoch + 1);
      const aborted = new AbortController();
      const third = a.acquire_lease?.('telegram:bot', { signal: aborted.signal });
      aborted.abort();
      await expect(third).rejects.toThrow();
      await next?.release();
    });
  });

  describe('the session storage', () => {
    it('keeps the records of a session and lists it; a later open fences the earlier handle', async () => {
      await migrate({ url: database.url });
      const storage = await open_postgres_session_storage({ url: database.url });
      opened.push(storage);
      const handle = await storage.create({ work_dir: '/w', model: 'm', lich_version: '0.1.0' });
      await handle.append({
        type: 'run_start',
        run: 1,
        max_turns: 10,
        seeded_count: 1,
        kept: 0,
        input: 'hello',
      });
      await handle.append({
        type: 'message',
        run: 1,
        index: 0,
        source: 'seed',
        message: { role: 'user', content: 'hello' },
      });
      await handle.append({
        type: 'message',
        run: 1,
        index: 1,
        source: 'llm',
        message: { role: 'assistant', content: 'hi there' },
        usage: { input_tokens: 3, output_tokens: 2 },
      });
      expect(await storage.read(handle.id)).toEqual([
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi there' },
      ]);
      const [summary] = await storage.list();
      expect(summary).toMatchObject({ id: handle.id, title: 'hello', runs: 1, model: 'm' });
      expect(summary?.path).not.toMatch(/password/);

      const again = await storage.open(handle.id);
      expect(again.state.slots).toHaveLength(2);
      const stale = handle.append({ type: 'title', title: 'stale' });
      await expect(stale).rejects.toSatisfy(
        (error: unknown) => SessionError.is_instance(error) && error.code === 'locked',
      );
      await again.append({ type: 'title', title: 'named' });
      expect((await storage.list())[0]?.title).toBe('named');
      await expect(
        storage.create({ id: handle.id, work_dir: '/w', model: 'm', lich_version: '0' }),
      ).rejects.toSatisfy(
        (error: unknown) => SessionError.is_instance(error) && error.code === 'exists',
      );
      await again.close();
      expect(await storage.delete(handle.id)).toBe(true);
      expect(await storage.delete(handle.id)).toBe(false);
      await expect(storage.open(handle.id)).rejects.toSatisfy(
        (error: unknown) => SessionError.is_instance(error) && error.code === 'not_found',
      );
    });

    it('lists the cost of each session as of its last finished run, as the file store does', async () => {
      await migrate({ url: database.url });
      const storage = await open_postgres_session_storage({ url: database.url });
      opened.push(storage);
      const run = async (
        handle: Awaited<ReturnType<typeof storage.create>>,
        number: number,
        cost: { cost_usd?: number | null; cost_total_usd?: number | null },
      ) => {
        const usage = { input_tokens: 100, output_tokens: 10 };
        await handle.append({
          type: 'run_start',
          run: number,
          max_turns: 10,
          seeded_count: 1,
          kept: 0,
          input: `run ${number}`,
        });
        await handle.append({
          type: 'message',
          run: number,
          index: 0,
          source: 'llm',
          message: { role: 'assistant', content: 'ok' },
          usage,
        });
        await handle.append({
          type: 'run_end',
          run: number,
          stopped_reason: 'final',
          turns_used: 1,
          messages_count: 2,
          usage,
          usage_total: usage,
          ...cost,
        });
      };
      const priced = await storage.create({ work_dir: '/c', model: 'm', lich_version: '0' });
      await run(priced, 1, { cost_usd: 0.01, cost_total_usd: 0.01 });
      await run(priced, 2, { cost_usd: 0.0023, cost_total_usd: 0.0123 });
      // records after the last run_end (a run in flight) leave the listed cost as it was
      await priced.append({ type: 'title', title: 'priced' });
      const unpriced = await storage.create({ work_dir: '/c', model: 'm', lich_version: '0' });
      await run(unpriced, 1, { cost_usd: null, cost_total_usd: null });
      const unfinished = await storage.create({ work_dir: '/c', model: 'm', lich_version: '0' });
      await unfinished.append({ type: 'title', title: 'no run yet' });
      const listed = new Map((await storage.list()).map((summary) => [summary.id, summary]));
      expect(listed.get(priced.id)?.cost_usd).toBeCloseTo(0.0123, 10);
      expect(listed.get(unpriced.id)?.cost_usd).toBeNull();
      expect(listed.get(unfinished.id)?.cost_usd).toBeNull();
      for (const handle of [priced, unpriced, unfinished]) {
        await handle.close();
        await storage.delete(handle.id);
      }
    });

    it('records a child session with its parent; lists parent and two children, nested', async () => {
      await migrate({ url: database.url });
      const storage = await open_postgres_session_storage({ url: database.url });
      opened.push(storage);
      const base = { work_dir: '/w', model: 'm', lich_version: '0.1.0' };
      const parent = await storage.create({ ...base, id: '20260101-000000-000-0000aaaa' });
      const first = await storage.create({
        ...base,
        id: '20260101-000001-000-0000bbbb',
        parent_session_id: parent.id,
      });
      const second = await storage.create({
        ...base,
        id: '20260101-000002-000-0000cccc',
        parent_session_id: parent.id,
      });
      // its session_start record says it too, as a session file's first line does
      const { rows } = await storage.pool.query<{ record: { parent_session_id?: string } }>(
        `SELECT record FROM session_records WHERE session_id = $1 ORDER BY seq LIMIT 1`,
        [second.id],
      );
      expect(rows[0]?.record).toMatchObject({
        type: 'session_start',
        parent_session_id: parent.id,
      });
      const mine = new Set([parent.id, first.id, second.id]);
      const listed = (await storage.list()).filter((summary) => mine.has(summary.id));
      expect(listed.map((summary) => [summary.id, summary.parent_session_id])).toEqual(
        expect.arrayContaining([
          [parent.id, undefined],
          [first.id, parent.id],
          [second.id, parent.id],
        ]),
      );
      const nested = nest_sessions(listed, { children: true });
      expect(nested.map((row) => [row.session.id, row.depth])).toEqual([
        [parent.id, 0],
        [first.id, 1],
        [second.id, 1],
      ]);
      expect(nest_sessions(listed).map((row) => [row.session.id, row.descendants])).toEqual([
        [parent.id, 2],
      ]);
      for (const handle of [parent, first, second]) await handle.close().catch(() => undefined);
      for (const id of mine) await storage.delete(id);
    });
  });

  describe('the node connection', () => {
    it('runs concurrent statements one at a time, with no pg deprecation warning (S8)', async () => {
      const { NodeConnection } = await import('../src/index.js');
      const node = new NodeConnection({ url: database.url });
      const warnings: string[] = [];
      const on_warning = (warning: Error) => warnings.push(warning.message);
      process.on('warning', on_warning);
      try {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            node.query<{ n: number }>('SELECT $1::int AS n, pg_sleep(0.001)', [index]),
          ),
        );
        expect(results.map((result) => result.rows[0]?.n)).toEqual(
          Array.from({ length: 20 }, (_, index) => index),
        );
        // a failing statement does not stop the ones queued behind it
        const [bad, good] = await Promise.allSettled([
          node.query('SELECT no_such_column'),
          node.query<{ ok: number }>('SELECT 1 AS ok'),
        ]);
        expect(bad.status).toBe('rejected');
        expect(good.status === 'fulfilled' && good.value.rows[0]?.ok).toBe(1);
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((text) => text.includes('already executing'))).toEqual([]);
      } finally {
        process.off('warning', on_warning);
        await node.close();
      }
    });
  });
});

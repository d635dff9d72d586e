/**
 * One budget shared by three nodes on one PostgreSQL database: each node has its own pool, its
 * own ledger and its own Agent, as three gateway processes would; a sender's daily budget holds
 * exactly across them.
 */
import { join } from 'node:path';
import { Agent, type BudgetLedger, make_config } from '@lich/agent';
import { fake_chat, make_temp_dir, type TempDir } from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, open_pool, PgBudgetLedger } from '../src/index.js';

const POSTGRES = postgres_or_skip();

let database: TestDatabase;
let pools: pg.Pool[] = [];
let temp: TempDir;

beforeAll(async () => {
  if (POSTGRES.skip) return;
  database = await start_test_database();
  await migrate({ url: database.url });
  temp = await make_temp_dir({ prefix: 'lich-pg-budget-', files: { 'bot/a.txt': 'a\n' } });
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  pools = [];
  await temp?.cleanup();
  await database?.close();
});

function node_ledger(): PgBudgetLedger {
  const pool = open_pool({ url: database.url, max_connections: 4 });
  pools.push(pool);
  return new PgBudgetLedger(pool);
}

describe.skipIf(POSTGRES.skip)(`PgBudgetLedger with PostgreSQL${POSTGRES.reason}`, () => {
  it('grants exactly what fits when three nodes reserve at once', async () => {
    const ledgers = [node_ledger(), node_ledger(), node_ledger()];
    const limits = [
      { key: 'sender:test:exact', limit_usd: 10 },
      { key: 'conversation:test:exact', limit_usd: 100 },
    ];
    const attempts = ledgers.flatMap((ledger) =>
      Array.from({ length: 20 }, async () => {
        const granted = await ledger.reserve(limits, 1);
        if (!granted.ok) return 0;
        await ledger.settle(granted.reservation, 1);
        return 1;
      }),
    );
    const made = (await Promise.all(attempts)).reduce((sum: number, one) => sum + one, 0);
    expect(made).toBe(10);
    expect(await ledgers[0]?.spent('sender:test:exact')).toBe(10);
    expect(await ledgers[2]?.spent('conversation:test:exact')).toBe(10);
    const left = await pools[0]?.query('SELECT sum(reserved_usd) AS reserved FROM budget_ledger');
    expect(Number(left?.rows[0]?.reserved)).toBe(0);
  });

  it('refuses a call that would cross, naming the limit', async () => {
    const ledger = node_ledger();
    const limits = [{ key: 'session:test:small', limit_usd: 1 }];
    const first = await ledger.reserve(limits, 0.6);
    expect(first.ok).toBe(true);
    const second = await ledger.reserve(limits, 0.6);
    expect(second).toMatchObject({
      ok: false,
      key: 'session:test:small',
      limit_usd: 1,
      reserved_usd: 0.6,
    });
  });

  it("three gateway nodes' agents share one per-sender budget exactly", async () => {
    const work_dir = join(temp.path, 'bot');
    const config = make_config({
      work_dir,
      providers: [{ kind: 'anthropic', model: 'claude-x', max_tokens: 200 }],
      // $1 per thousand tokens: a call of 500 in + 100 out costs $0.60
      prices: { 'anthropic/claude-x': { input: 1000, output: 1000 } },
      budget: { sender_day_usd: 12 },
    });
    const nodes = [0, 1, 2].map(() => {
      const chat = fake_chat(
        Array.from({ length: 40 }, () => ({
          text: 'ok',
          usage: { input_tokens: 500, output_tokens: 100 },
          provider: 'anthropic',
          model: 'claude-x',
        })),
        { delay_ms: 3 },
      );
      const ledger: BudgetLedger = node_ledger();
      const agent = new Agent({
        config,
        chat,
        env: {},
        budget_ledger: ledger,
        on_warning: () => undefined,
      });
      return { chat, agent };
    });
    // every node answers messages of the same sender, in several conversations at once
    const runs = nodes.flatMap((node, index) =>
      Array.from({ length: 12 }, (_, message) =>
        node.agent.run({
          input: `message ${message}`,
          session: false,
          budget_scopes: {
            sender: 'webhook:alice',
            conversation: `webhook:chat-${index}-${message % 3}`,
          },
        }),
      ),
    );
    const results = await Promise.all(runs);
    await Promise.all(nodes.map((node) => node.agent.close()));
    const spent = results.reduce((sum, result) => sum + (result.cost_usd ?? 0), 0);
    const calls = nodes.reduce((sum, node) => sum + node.chat.calls.length, 0);
    expect(spent).toBeCloseTo(0.6 * calls, 9);
    expect(spent).toBeLessThanOrEqual(12);
    expect(results.some((result) => result.outcome.stopped_reason === 'budget')).toBe(true);
    const key = `sender:webhook:alice:${new Date().toISOString().slice(0, 10)}`;
    // the ledger holds exactly what the calls cost, across the three nodes
    expect(await node_ledger().spent(key)).toBeCloseTo(spent, 9);
  });
});

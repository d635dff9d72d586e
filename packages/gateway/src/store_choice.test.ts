/**
 * The store a gateway process runs on: the JSONL files by default, and `@lich/store-postgres` (a
 * real server: `LICH_TEST_DATABASE_URL`, or one started from the system's initdb) for a
 * `postgres://` URL, keeping answered work as long as `retention_days` says.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from '@lich/store-postgres';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { make_message } from '../test/fake_adapter.js';
import type { GatewayLogEntry } from './gateway_bus.js';
import { parse_platform_settings } from './gateway_config.js';
import { open_gateway_store } from './store_choice.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
  let database: TestDatabase;
  let state_dir: string;

  beforeAll(async () => {
    database = await start_test_database();
    await migrate({ url: database.url });
    state_dir = await mkdtemp(join(tmpdir(), 'lich-store-choice-'));
  }, 60_000);

  afterAll(async () => {
    await database?.close();
    if (state_dir) await rm(state_dir, { recursive: true, force: true });
  });

  interface Prunable {
    pool: { query(text: string, values?: unknown[]): Promise<unknown> };
    prune(): Promise<{ inbound: number; outbox: number }>;
  }

  describe('retention_days', () => {
    it('is a whole number of days in a platform section', () => {
      expect(parse_platform_settings('webhook', { retention_days: 30 }).bus.retention_days).toBe(
        30,
      );
      expect(() => parse_platform_settings('webhook', { retention_days: 0.5 })).toThrow(
        /webhook\.retention_days must be a whole number of at least 1/,
      );
      expect(parse_platform_settings('webhook', { retention_days: 3 }).platform).toEqual({});
    });

    it('sets how long the PostgreSQL store keeps answered messages', async () => {
      const logs: GatewayLogEntry[] = [];
      const open = async (retention_days?: number) => {
        const chosen = await open_gateway_store({
          url: database.url,
          platform: 'webhook',
          state_dir,
          log: (entry) => logs.push(entry),
          ...(retention_days === undefined ? {} : { retention_days }),
        });
        return { chosen, store: chosen.store as typeof chosen.store & Prunable };
      };
      const kept_a_week = await open();
      const kept_a_day = await open(1);
      try {
        const key = 'test:retention';
        await kept_a_week.store.log.append(make_message({ chat: 'retention' }));
        const claim = await kept_a_week.store.lock.claim(key);
        if (claim === null) throw new Error('no claim');
        await kept_a_week.store.log.mark_done(key, 1, claim);
        await kept_a_week.store.lock.release(claim);
        await kept_a_week.store.pool.query(
          `UPDATE inbound SET logged_at = now() - interval '2 days' WHERE conversation_key = $1`,
          [key],
        );
        // two days old: within the default week, past a retention of one day
        expect(await kept_a_week.store.prune()).toMatchObject({ inbound: 0, outbox: 0 });
        expect(await kept_a_day.store.prune()).toMatchObject({ inbound: 1, outbox: 0 });
        expect(logs.filter((entry) => entry.level === 'warn')).toEqual([]);
      } finally {
        await kept_a_week.store.close();
        await kept_a_day.store.close();
      }
    });

    it('is ignored, with a warning, by the JSONL store', async () => {
      const logs: GatewayLogEntry[] = [];
      const chosen = await open_gateway_store({
        url: undefined,
        platform: 'webhook',
        state_dir,
        log: (entry) => logs.push(entry),
        retention_days: 3,
      });
      try {
        expect(chosen.where).toBe(join(state_dir, 'webhook'));
        expect(logs).toEqual([
          {
            level: 'warn',
            message:
              'retention_days applies to a postgres:// store; the JSONL store compacts instead',
          },
        ]);
      } finally {
        await chosen.store.close();
      }
    });
  });
});

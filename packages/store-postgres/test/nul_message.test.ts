/**
 * Finding X13: a chat message holding U+0000, posted to the webhook gateway, is answered the same
 * with the JSONL store and with the PostgreSQL store (a real server: `jsonb` refuses U+0000):
 * stored with the character stripped and answered 200, never a 5xx a sender would retry forever.
 */
import { join } from 'node:path';
import { Agent, create_session_host, make_config } from '@lich/agent';
import type { Message } from '@lich/core';
import { GatewayBus, type GatewayStore, open_jsonl_store } from '@lich/gateway';
import { decode_webhook_secret, WebhookAdapter } from '@lich/gateway-webhook';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { post_signed, SECRET } from '../../gateway-webhook/test/webhook_client.js';
import {
  migrate,
  open_postgres_gateway_store,
  open_postgres_session_storage,
} from '../src/index.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
  const KEY = decode_webhook_secret(SECRET);

  let database: TestDatabase;
  let temp: TempDir;
  let model: FakeServer;
  const cleanups: (() => Promise<unknown>)[] = [];

  function last_user(body: unknown): string {
    const messages = (body as { messages: Message[] }).messages;
    const last = messages.findLast((message) => message.role === 'user');
    return typeof last?.content === 'string' ? last.content : '';
  }

  beforeAll(async () => {
    database = await start_test_database();
    await migrate({ url: database.url });
  }, 60_000);

  afterAll(async () => {
    await database?.close();
  });

  beforeEach(async () => {
    temp = await make_temp_dir({ prefix: 'lich-nul-' });
    model = await start_openai_server({
      respond: (request) => ({ text: `re: ${last_user(request.body)}` }),
    });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await model.close();
    await temp.cleanup();
  });

  /** A webhook gateway in this process over the JSONL store, or over PostgreSQL for both stores. */
  async function start_gateway(kind: 'file' | 'postgres'): Promise<string> {
    const agent = new Agent({
      config: make_config({
        work_dir: temp.path,
        providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
      }),
      env: {},
      on_warning: () => undefined,
    });
    let store: GatewayStore;
    let close_storage: () => Promise<unknown> = async () => undefined;
    let storage: Awaited<ReturnType<typeof open_postgres_session_storage>> | undefined;
    if (kind === 'postgres') {
      store = await open_postgres_gateway_store({ url: database.url, prune_every_ms: 0 });
      storage = await open_postgres_session_storage({ url: database.url });
      close_storage = () => storage!.close();
    } else {
      store = await open_jsonl_store({ dir: join(temp.path, '.lich', 'gateway', 'webhook') });
    }
    const host = create_session_host({
      agent,
      ...(storage === undefined ? {} : { storage }),
      on_warning: () => undefined,
    });
    const adapter = new WebhookAdapter({ key: KEY, port: 0 });
    const bus = new GatewayBus({ host, adapter, access: { allow_users: ['alice'] }, store });
    await bus.start();
    await adapter.start(bus);
    cleanups.push(async () => {
      await adapter.stop_intake();
      await bus.drain();
      await host.shutdown();
      await bus.close();
      await adapter.close();
      await close_storage();
    });
    return adapter.url;
  }

  describe.each(['file', 'postgres'] as const)(
    'a U+0000 in a chat message, %s store (X13)',
    (kind) => {
      it('is stripped and answered 200, in the sender name and in the text', async () => {
        const url = await start_gateway(kind);
        const named = await post_signed(url, KEY, {
          chat_id: `c1-${kind}`,
          sender: { id: 'alice', name: 'Robert\u0000Tables' },
          text: 'hi',
        });
        expect(named.status).toBe(200);
        expect(named.body).toMatchObject({ status: 'answered' });
        const texted = await post_signed(url, KEY, {
          chat_id: `c-nul-${kind}`,
          sender: { id: 'alice' },
          text: 'NUL-TEXT \u0000 here',
        });
        expect(texted.status).toBe(200);
        expect(texted.body).toMatchObject({ status: 'answered' });
        const asked = model.requests.map((request) => last_user(request.body));
        expect(asked).toContain('NUL-TEXT  here');
        expect(asked.join('')).not.toContain('\u0000');
      });
    },
  );
});

/**
 * A picture through the webhook gateway with both stores in PostgreSQL (a real server): the
 * gateway's log keeps it inline in its `jsonb` row, the session's records keep the image part
 * inline too (this storage has no blob store), the model gets it, and a second host over the same
 * database loads the session with the picture's bytes intact.
 */
import { Agent, create_session_host, make_config } from '@lich/agent';
import { GatewayBus } from '@lich/gateway';
import { decode_webhook_secret, WebhookAdapter } from '@lich/gateway-webhook';
import {
  type FakeServer,
  make_temp_dir,
  start_openai_server,
  type TempDir,
  TINY_PNG_BASE64,
} from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import pg from 'pg';
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

  beforeAll(async () => {
    database = await start_test_database();
    await migrate({ url: database.url });
  }, 60_000);

  afterAll(async () => {
    await database?.close();
  });

  beforeEach(async () => {
    temp = await make_temp_dir({ prefix: 'lich-pg-images-' });
    model = await start_openai_server({ respond: () => ({ text: 'one red pixel' }) });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await model.close();
    await temp.cleanup();
  });

  function make_agent(): Agent {
    return new Agent({
      config: make_config({
        work_dir: temp.path,
        providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
      }),
      env: {},
      on_warning: () => undefined,
    });
  }

  it('keeps a picture inline in the gateway log and the session, and loads it back', async () => {
    const store = await open_postgres_gateway_store({ url: database.url, prune_every_ms: 0 });
    const storage = await open_postgres_session_storage({ url: database.url });
    const host = create_session_host({ agent: make_agent(), storage, on_warning: () => undefined });
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
      await storage.close();
    });

    const answer = await post_signed(adapter.url, KEY, {
      chat_id: 'pics',
      sender: { id: 'alice' },
      text: 'what is this?',
      images: [{ media_type: 'image/png', data: TINY_PNG_BASE64, name: 'dot.png' }],
    });
    expect(answer).toMatchObject({ status: 200, body: { status: 'answered' } });
    const sent = model.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(sent.messages.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${TINY_PNG_BASE64}` } },
    ]);

    // the gateway's log row holds the picture inline
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const rows = await client.query<{ message: { images?: { data?: string }[] } }>(
      `SELECT message FROM inbound WHERE conversation_key = 'webhook:pics'`,
    );
    await client.end();
    expect(rows.rows[0]?.message.images?.[0]?.data).toBe(TINY_PNG_BASE64);

    // another node loads the session from the database, picture and all
    const [session] = (await host.list()).filter((info) => info.title === 'webhook:pics');
    expect(session).toBeDefined();
    const other_storage = await open_postgres_session_storage({ url: database.url });
    const other = create_session_host({
      agent: make_agent(),
      storage: other_storage,
      on_warning: () => undefined,
    });
    cleanups.push(async () => {
      await other.shutdown();
      await other_storage.close();
    });
    await other.load(session?.session_id ?? '');
    const history = await other.history(session?.session_id ?? '');
    expect(history.find((message) => message.role === 'user')?.content).toEqual([
      { type: 'text', text: 'what is this?' },
      {
        type: 'image',
        media_type: 'image/png',
        data: TINY_PNG_BASE64,
        name: 'dot.png',
        width: 1,
        height: 1,
      },
    ]);
  });
});

/**
 * `lich serve --store`: a SessionHost over the PostgreSQL session storage keeps a session across
 * a restart of the host (a team server moved to another machine): the second host loads it from
 * the database and continues the conversation.
 */
import { Agent, create_session_host, make_config } from '@lich/agent';
import type { Message } from '@lich/core';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, open_postgres_session_storage } from '../src/index.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
  let database: TestDatabase;
  let model: FakeServer;
  let temp: TempDir;

  beforeAll(async () => {
    database = await start_test_database();
    await migrate({ url: database.url });
    model = await start_openai_server({
      respond: (request) => {
        const messages = (request.body as { messages: Message[] }).messages;
        const said = messages.filter((message) => message.role === 'user').map((m) => m.content);
        return { text: `heard: ${said.join(' | ')}` };
      },
    });
    temp = await make_temp_dir({ prefix: 'lich-pg-host-' });
  }, 60_000);

  afterAll(async () => {
    await temp?.cleanup();
    await model?.close();
    await database?.close();
  });

  /** A host over the database, as `lich serve --store <url>` makes it. */
  async function start_host() {
    const storage = await open_postgres_session_storage({ url: database.url });
    const agent = new Agent({
      config: make_config({
        work_dir: temp.path,
        providers: [{ kind: 'openai_compat', model: 'fake-model', base_url: model.base_url }],
      }),
      env: {},
      on_warning: () => undefined,
    });
    const host = create_session_host({ agent, storage, on_warning: () => undefined });
    return {
      host,
      /** Prompts and resolves the turn's answer. */
      ask: async (session_id: string, text: string): Promise<string | null> => {
        let done: (final: string | null) => void = () => undefined;
        const answered = new Promise<string | null>((resolve) => {
          done = resolve;
        });
        const subscription = await host.subscribe(session_id, (event) => {
          if (event.type === 'turn.completed') {
            done((event.payload as { final: string | null }).final);
          }
        });
        await host.prompt(session_id, text);
        const final = await answered;
        subscription.unsubscribe();
        return final;
      },
      stop: async () => {
        await host.shutdown();
        await storage.close();
      },
    };
  }

  describe('a SessionHost on the PostgreSQL session storage', () => {
    it('continues a session after the host restarts', async () => {
      const first = await start_host();
      const { session_id, path } = await first.host.create({ title: 'team' });
      expect(path).toMatch(/^postgres:\/\//);
      expect(await first.ask(session_id, 'my name is Ann')).toBe('heard: my name is Ann');
      await first.stop();

      const second = await start_host();
      expect((await second.host.list()).map((info) => info.session_id)).toContain(session_id);
      await second.host.load(session_id);
      expect(await second.ask(session_id, 'who am I?')).toBe('heard: my name is Ann | who am I?');
      const history = await second.host.history(session_id);
      expect(history.filter((message) => message.role !== 'system').map((m) => m.content)).toEqual([
        'my name is Ann',
        'heard: my name is Ann',
        'who am I?',
        'heard: my name is Ann | who am I?',
      ]);
      await second.stop();
    });

    it('replaces a run its process left half-written when the same prompt comes again', async () => {
      const first = await start_host();
      const { session_id } = await first.host.create({ title: 'retry' });
      expect(await first.ask(session_id, 'my name is Bo')).toBe('heard: my name is Bo');
      await first.stop();
      // what a node SIGKILLed mid-run leaves: the run's start and its prompt, no answer, no end
      const storage = await open_postgres_session_storage({ url: database.url });
      const handle = await storage.open(session_id);
      const kept = handle.state.slots.length;
      await handle.append({
        type: 'run_start',
        run: 2,
        max_turns: 10,
        seeded_count: kept + 1,
        kept,
        input: 'who am I?',
      });
      await handle.append({
        type: 'message',
        run: 2,
        index: kept,
        source: 'seed',
        message: { role: 'user', content: 'who am I?' },
      });
      await handle.close();
      await storage.close();

      // the gateway's retry of that message, on another node
      const second = await start_host();
      await second.host.load(session_id);
      expect(await second.ask(session_id, 'who am I?')).toBe('heard: my name is Bo | who am I?');
      const history = await second.host.history(session_id);
      expect(history.filter((message) => message.role !== 'system').map((m) => m.content)).toEqual([
        'my name is Bo',
        'heard: my name is Bo',
        'who am I?',
        'heard: my name is Bo | who am I?',
      ]);
      await second.stop();
      // and so it reads from the database
      const reader = await open_postgres_session_storage({ url: database.url });
      const stored = await reader.read(session_id);
      expect(stored.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
        'my name is Bo',
        'who am I?',
      ]);
      await reader.close();
    });
  });
});

/**
 * Three `lich-gateway-webhook` processes on one PostgreSQL database (the "Must show"):
 * 20 conversations × 20 messages sent in random order to random nodes are answered once each, in
 * send order; a node SIGKILLed mid-run leaves nothing lost or answered twice; every node
 * restarted, every conversation goes on from its session. Replies are counted by their
 * idempotency key (the Standard Webhooks id): a redelivery of one reply is told apart from a
 * second answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@lich/core';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { postgres_or_skip, start_test_database, type TestDatabase } from '@lich/testkit/postgres';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Callbacks,
  type GatewayNode,
  replies_by_chat,
  seeded_random,
  send,
  start_callbacks,
  start_node,
  stop_node,
} from '../../../bench/src/gateway_cluster.js';
import { migrate, open_pool, open_postgres_session_storage } from '../src/index.js';

const POSTGRES = postgres_or_skip();

describe.skipIf(POSTGRES.skip)(`with PostgreSQL${POSTGRES.reason}`, () => {
  const CONVERSATIONS = 20;
  const MESSAGES = 20;

  let database: TestDatabase;
  let model: FakeServer;
  let callbacks: Callbacks;
  let dir: string;
  let nodes: GatewayNode[] = [];

  function last_user(body: unknown): string {
    const messages = (body as { messages: Message[] }).messages;
    const last = messages.findLast((message) => message.role === 'user');
    return typeof last?.content === 'string' ? last.content : '';
  }

  beforeEach(async () => {
    database = await start_test_database();
    await migrate({ url: database.url });
    // a short answer delay keeps runs in flight, so a kill lands mid-run
    model = await start_openai_server({
      respond: (request) => ({ text: `re: ${last_user(request.body)}`, delay_ms: 15 }),
    });
    callbacks = await start_callbacks();
    dir = await mkdtemp(join(tmpdir(), 'lich-pg-nodes-'));
  }, 60_000);

  afterEach(async () => {
    for (const node of nodes) if (node.alive) node.child.kill('SIGKILL');
    await Promise.all(nodes.map((node) => node.exited));
    nodes = [];
    await callbacks.close();
    await model.close();
    await rm(dir, { recursive: true, force: true });
    await database.close();
  }, 60_000);

  async function start_nodes(count: number, first_index = 0): Promise<GatewayNode[]> {
    const started = await Promise.all(
      Array.from({ length: count }, (_, offset) =>
        start_node({
          index: first_index + offset,
          dir,
          database_url: database.url,
          model_url: model.base_url,
          callback_url: callbacks.url,
        }),
      ),
    );
    nodes.push(...started);
    return started;
  }

  /**
   * Sends messages `from` to `to - 1` of every conversation: each conversation sends in order (the
   * next once the last was taken), all conversations at once, each message to a random node.
   */
  async function send_all(
    targets: () => readonly GatewayNode[],
    random: () => number,
    from: number,
    to: number,
  ): Promise<void> {
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, index) => {
        const chat = `c${index}`;
        for (let k = from; k < to; k += 1) {
          await send(targets(), chat, `${chat} m${k}`, `${chat}-${k}`, random);
        }
      }),
    );
  }

  /** Every conversation got exactly one reply per message, in send order. */
  function expect_in_order_once(count: number): { redelivered: number } {
    const { by_chat, redelivered } = replies_by_chat(callbacks.deliveries);
    expect(by_chat.size).toBe(CONVERSATIONS);
    for (let index = 0; index < CONVERSATIONS; index += 1) {
      const chat = `c${index}`;
      const got = by_chat.get(chat) ?? [];
      expect(got.map((reply) => reply.text)).toEqual(
        Array.from({ length: count }, (_, k) => `re: ${chat} m${k}`),
      );
      expect(got.map((reply) => reply.in_reply_to)).toEqual(
        Array.from({ length: count }, (_, k) => `${chat}-${k}`),
      );
    }
    return { redelivered };
  }

  const distinct = () => new Set(callbacks.deliveries.map((delivery) => delivery.id)).size;

  describe('three gateway nodes and a daily spending limit', () => {
    it('tell the owner once between them that the limit stopped the conversations', async () => {
      const started = await Promise.all(
        [0, 1, 2].map((index) =>
          start_node({
            index,
            dir,
            database_url: database.url,
            model_url: model.base_url,
            callback_url: callbacks.url,
            gateway: { owner_chat: 'owner' },
            // any call would cross it: every message is stopped by the day's limit
            user_config: {
              budget: { day_usd: 0.000001 },
              prices: { 'fake-model': { input: 1000, output: 1000 } },
            },
          }),
        ),
      );
      nodes.push(...started);
      const random = seeded_random(7);
      // nine conversations, three sent to each node
      await Promise.all(
        Array.from({ length: 9 }, (_, index) =>
          send([started[index % 3]!], `b${index}`, `hello ${index}`, `b-${index}`, random),
        ),
      );
      await callbacks.until(() => callbacks.deliveries.length >= 9);
      // the senders got the polite line, each once; the owner one notice, not one per node
      expect(new Set(callbacks.deliveries.map((delivery) => delivery.chat_id)).size).toBe(9);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const told = callbacks.notices.filter((notice) => notice.chat_id === 'owner');
      expect(told).toHaveLength(1);
      expect(told[0]?.text).toMatch(/budget|limit/i);
      const pool = open_pool({ url: database.url });
      try {
        const { rows } = await pool.query<{ key: string }>('SELECT key FROM gateway_notices');
        expect(rows.map((row) => row.key)).toEqual([expect.stringMatching(/^budget:day:/)]);
      } finally {
        await pool.end();
      }
      expect(await Promise.all(started.map(stop_node))).toEqual([0, 0, 0]);
    }, 120_000);
  });

  describe('three gateway nodes on one database', () => {
    it('answer 20 conversations × 20 messages sent in random order to random nodes: once each, in order', async () => {
      const started = await start_nodes(3);
      await send_all(() => started, seeded_random(19), 0, MESSAGES);
      await callbacks.until(() => distinct() === CONVERSATIONS * MESSAGES);
      const { redelivered } = expect_in_order_once(MESSAGES);
      expect(redelivered).toBe(0);
      expect(callbacks.deliveries).toHaveLength(CONVERSATIONS * MESSAGES);
      // every node took part, and each drains to exit 0
      expect(await Promise.all(started.map(stop_node))).toEqual([0, 0, 0]);
    }, 180_000);

    it('finish the conversations of a node SIGKILLed mid-run on the others, none lost or answered twice', async () => {
      const started = await start_nodes(3);
      const victim = started[0] as GatewayNode;
      const killed = callbacks
        .until(() => distinct() >= (CONVERSATIONS * MESSAGES) / 4)
        .then(() => victim.child.kill('SIGKILL'));
      await send_all(() => started, seeded_random(7), 0, MESSAGES);
      await killed;
      expect(victim.alive === false || (await victim.exited) === null).toBe(true);
      await callbacks.until(() => distinct() === CONVERSATIONS * MESSAGES);
      // a reply the dead node had sent but not marked sent may come again, with the same id
      const { redelivered } = expect_in_order_once(MESSAGES);
      expect(redelivered).toBeLessThanOrEqual(8); // at most one per run it had in flight
      expect(await Promise.all(started.slice(1).map(stop_node))).toEqual([0, 0]);
      // the runs the dead node left half-written were replaced by their retries, not repeated
      const storage = await open_postgres_session_storage({ url: database.url });
      try {
        const { rows } = await storage.pool.query<{ conversation_key: string; session_id: string }>(
          'SELECT conversation_key, session_id FROM conversations',
        );
        expect(rows).toHaveLength(CONVERSATIONS);
        for (const row of rows) {
          const chat = row.conversation_key.split(':').pop() ?? '';
          const history = await storage.read(row.session_id);
          expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(
            Array.from({ length: MESSAGES }, (_, k) => `${chat} m${k}`),
          );
        }
      } finally {
        await storage.close();
      }
    }, 180_000);

    it('go on with every conversation from its session after every node was restarted', async () => {
      const first = await start_nodes(3);
      const half = MESSAGES / 2;
      await send_all(() => first, seeded_random(3), 0, half);
      await callbacks.until(() => distinct() === CONVERSATIONS * half);
      expect(await Promise.all(first.map(stop_node))).toEqual([0, 0, 0]);

      const second = await start_nodes(3, 3);
      await send_all(() => second, seeded_random(4), half, MESSAGES);
      await callbacks.until(() => distinct() === CONVERSATIONS * MESSAGES);
      expect_in_order_once(MESSAGES);
      // the model was given each conversation's history from before the restart
      for (let index = 0; index < CONVERSATIONS; index += 1) {
        const chat = `c${index}`;
        const request = model.requests.find((seen) => last_user(seen.body) === `${chat} m${half}`);
        const body = (request?.body ?? { messages: [] }) as { messages: Message[] };
        const said = body.messages.map((m) => m.content);
        expect(said).toContain(`re: ${chat} m${half - 1}`);
        expect(said).toContain(`${chat} m0`);
      }
      expect(await Promise.all(second.map(stop_node))).toEqual([0, 0, 0]);
    }, 180_000);
  });
});

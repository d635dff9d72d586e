/**
 * Gateway nodes on PostgreSQL: the real `lich-gateway-webhook` bin, 1, 2 and 3 processes on one
 * database (`--store`), against the fake OpenAI server answering every call after a fixed 200 ms,
 * so the model is not the bottleneck: a node's capacity is its run slots (`--max-concurrency 2`
 * here, so that three nodes' work fits the two cores of the bench machine; at the default 8 the
 * machine, not the design, is what is measured), and more nodes should run more at once. Each
 * run sends 24 conversations × 10 messages, every message to a random node, each conversation in
 * order (the next message once the last was taken); replies come back to a callback server.
 * Measured: messages per second from the first send to the last reply at each node count (over
 * `LICH_BENCH_ROUNDS` runs of each, 2 by default, in the order 1 2 3 3 2 1 so that a drifting
 * machine load weighs on every count alike), the ratio of 3 nodes to 1 (target ≥ 2.5), and in
 * the same runs that every message was answered exactly once (counted by the reply's
 * idempotency key) and each conversation in send order.
 * The database: `LICH_BENCH_DATABASE_URL` or `LICH_TEST_DATABASE_URL`'s server, else one started
 * from the system's initdb; a fresh database per run. `pnpm bench:gateway-pg`.
 * On stderr, per run: the nodes' and the database's CPU seconds, and what each node did (messages,
 * conversations, claims taken over, slot occupancy; see `gateway_pg_trace.ts`), to tell uneven
 * work from a loaded machine. `LICH_BENCH_CONVERSATIONS`, `LICH_BENCH_MESSAGES` and
 * `LICH_BENCH_SLOTS` change the load (the same for every node count); `LICH_BENCH_SEED` the
 * random order of the sends.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, open_pool } from '@lich/store-postgres';
import { start_openai_server } from '@lich/testkit';
import { start_test_database } from '@lich/testkit/postgres';
import {
  close_sender,
  type GatewayNode,
  replies_by_chat,
  seeded_random,
  send,
  start_callbacks,
  start_node,
  stop_node,
} from './gateway_cluster.js';
import { format_trace, install_trace, read_trace } from './gateway_pg_trace.js';
import type { BenchRow } from './types.js';

const CONVERSATIONS = Number(process.env.LICH_BENCH_CONVERSATIONS ?? 24);
const MESSAGES = Number(process.env.LICH_BENCH_MESSAGES ?? 10);
const SLOTS_PER_NODE = Number(process.env.LICH_BENCH_SLOTS ?? 2);
const ANSWER_DELAY_MS = 200;
const NODE_COUNTS = [1, 2, 3];
/**
 * Each count runs this often, in the order 1 2 3 3 2 1 (…): the machine's load drifts over the
 * minutes a bench takes, and a mirrored order gives every count the same share of it.
 */
const ROUNDS = Number(process.env.LICH_BENCH_ROUNDS ?? 2);
const TARGET_RATIO = 2.5;

interface RunResult {
  nodes: number;
  messages: number;
  seconds: number;
  messages_per_s: number;
  exactly_once: boolean;
  ordered: boolean;
  redelivered: number;
}

/** User + system CPU seconds of a process so far (Linux `/proc`; 0 elsewhere). */
async function cpu_seconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The server processes of the database's connections (the server runs on this machine). */
async function backend_pids(url: string): Promise<number[]> {
  const pool = open_pool({ url, max_connections: 1 });
  try {
    const { rows } = await pool.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.map((row) => row.pid);
  } finally {
    await pool.end();
  }
}

async function run_nodes(count: number, model_url: string): Promise<RunResult> {
  if (process.env.LICH_BENCH_DATABASE_URL) {
    process.env.LICH_TEST_DATABASE_URL = process.env.LICH_BENCH_DATABASE_URL;
  }
  const database = await start_test_database();
  const callbacks = await start_callbacks();
  const dir = await mkdtemp(join(tmpdir(), 'lich-bench-pg-'));
  const nodes: GatewayNode[] = [];
  try {
    await migrate({ url: database.url });
    await install_trace(database.url);
    nodes.push(
      ...(await Promise.all(
        Array.from({ length: count }, (_, index) =>
          start_node({
            index,
            dir,
            database_url: database.url,
            model_url,
            callback_url: callbacks.url,
            max_concurrency: SLOTS_PER_NODE,
            node_args: ['--max-old-space-size=256'],
          }),
        ),
      )),
    );
    const total = CONVERSATIONS * MESSAGES;
    const random = seeded_random(count + Number(process.env.LICH_BENCH_SEED ?? 0));
    const distinct = () => new Set(callbacks.deliveries.map((delivery) => delivery.id)).size;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: CONVERSATIONS }, async (_, index) => {
        const chat = `c${index}`;
        for (let k = 0; k < MESSAGES; k += 1) {
          await send(nodes, chat, `${chat} m${k}`, `${chat}-${k}`, random);
        }
      }),
    );
    await callbacks.until(() => distinct() >= total, 600_000);
    const seconds = (performance.now() - began) / 1000;
    const { by_chat, redelivered } = replies_by_chat(callbacks.deliveries);
    let ordered = by_chat.size === CONVERSATIONS;
    let exactly_once = distinct() === total;
    for (let index = 0; index < CONVERSATIONS; index += 1) {
      const chat = `c${index}`;
      const got = by_chat.get(chat) ?? [];
      const expected = Array.from({ length: MESSAGES }, (_, k) => `re: ${chat} m${k}`);
      if (got.map((reply) => reply.text).join('\n') !== expected.join('\n')) ordered = false;
      if (new Set(got.map((reply) => reply.in_reply_to)).size !== got.length) exactly_once = false;
    }
    const cpu = await Promise.all(nodes.map((node) => cpu_seconds(node.child.pid)));
    const backends = await backend_pids(database.url);
    const database_cpu = (await Promise.all(backends.map(cpu_seconds))).reduce((a, b) => a + b, 0);
    await Promise.all(nodes.map(stop_node));
    process.stderr.write(
      `    CPU: nodes ${cpu.map((s) => `${s.toFixed(1)} s`).join(', ')}; ` +
        `${backends.length} database backends ${database_cpu.toFixed(1)} s\n`,
    );
    process.stderr.write(format_trace(await read_trace(database.url), SLOTS_PER_NODE));
    return {
      nodes: count,
      messages: total,
      seconds,
      messages_per_s: total / seconds,
      exactly_once,
      ordered,
      redelivered,
    };
  } finally {
    for (const node of nodes) if (node.alive) node.child.kill('SIGKILL');
    await callbacks.close();
    await rm(dir, { recursive: true, force: true });
    await database.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const model = await start_openai_server({
    record_requests: false,
    respond: (incoming) => {
      const messages = (incoming.body as { messages: { role: string; content: string }[] })
        .messages;
      const last = messages.findLast((message) => message.role === 'user');
      return { text: `re: ${last?.content ?? ''}`, delay_ms: ANSWER_DELAY_MS };
    },
  });
  const runs: RunResult[] = [];
  const order = Array.from({ length: ROUNDS }, (_, round) =>
    round % 2 === 0 ? NODE_COUNTS : [...NODE_COUNTS].reverse(),
  ).flat();
  try {
    for (const count of order) {
      process.stderr.write(`  ${count} node(s), ${CONVERSATIONS} conv × ${MESSAGES} msgs…\n`);
      const result = await run_nodes(count, model.base_url);
      process.stderr.write(`    ${result.messages_per_s.toFixed(1)} msg/s\n`);
      runs.push(result);
    }
  } finally {
    await model.close();
    close_sender();
  }
  // each count over all its runs: every message over all their time; every run must be right
  const results: RunResult[] = NODE_COUNTS.map((count) => {
    const mine = runs.filter((run) => run.nodes === count);
    const messages = mine.reduce((sum, run) => sum + run.messages, 0);
    const seconds = mine.reduce((sum, run) => sum + run.seconds, 0);
    return {
      nodes: count,
      messages,
      seconds,
      messages_per_s: messages / seconds,
      exactly_once: mine.every((run) => run.exactly_once),
      ordered: mine.every((run) => run.ordered),
      redelivered: mine.reduce((sum, run) => sum + run.redelivered, 0),
    };
  });
  const label = `${CONVERSATIONS} conv × ${MESSAGES} msgs, ${SLOTS_PER_NODE} slots/node, model ${ANSWER_DELAY_MS} ms, ${ROUNDS} runs`;
  const rows: BenchRow[] = [];
  const one = results[0];
  for (const result of results) {
    rows.push(
      {
        bench: 'gateway-pg',
        metric: `throughput, ${result.nodes} node(s), ${label}`,
        lich: result.messages_per_s,
        ...(one === undefined || result === one
          ? {}
          : {
              baseline: one.messages_per_s,
              baseline_name: '1 node',
              ratio: result.messages_per_s / one.messages_per_s,
            }),
        unit: 'msg/s',
        ...(result.nodes === 3 && one !== undefined
          ? {
              target: `ratio >= ${TARGET_RATIO}`,
              pass: result.messages_per_s / one.messages_per_s >= TARGET_RATIO,
            }
          : {}),
      },
      {
        bench: 'gateway-pg',
        metric: `exactly one reply per message, in send order, ${result.nodes} node(s), every run`,
        lich: result.exactly_once && result.ordered ? 1 : 0,
        unit: 'ok',
        target: 'every message once, every conversation in order',
        pass: result.exactly_once && result.ordered,
      },
      {
        bench: 'gateway-pg',
        metric: `replies delivered again (same idempotency key), ${result.nodes} node(s)`,
        lich: result.redelivered,
        unit: 'count',
      },
    );
  }
  return rows;
}

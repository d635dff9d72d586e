/**
 * `lich serve` under load: 50 WebSocket clients, each with its own session, each streaming a
 * 2,000-token answer at the same time, at a model's pace: 100 tokens a second per client by
 * default (real models stream about 50–150), 5,000 a second in all. Three processes: the fake
 * model (`serve_provider.ts`), the server (`serve_host.ts`: the real host and `start_ws_server`),
 * and this one with the 50 `LichClient`s.
 *
 * For every event, three times on one clock (CLOCK_MONOTONIC, shared by the processes):
 * - `host`: it reached a listener on the same host in the server's own process (the baseline:
 *   reading the host in process);
 * - `floor`: a bare `ws` message the server sent, from that listener, at that moment, to this
 *   process (no Lich: what any message between the two processes costs right then, load and
 *   scheduling included);
 * - `lich`: it reached the client's `on_event` listener (the protocol: JSON encoding, the socket,
 *   parsing, the client).
 *
 * Reported: the added delivery latency `lich - host` (the figure, target p99 ≤ 2 ms),
 * the floor `floor - host` at the same moments, Lich over the floor per event `lich - floor`
 * (what Lich adds beyond a bare message sent at the same moment; target p99 ≤ 2 ms as well), the
 * server's own share (its listener to the return of `ws.send`), this process's event loop
 * delay, the CPU the server and the clients used, and the server's peak RSS (target ≤ 200 MB). On a loaded machine the floor alone can
 * pass 2 ms; the rows say so rather than hide it.
 *
 * Run: `pnpm bench:serve` (BENCH_CLIENTS, BENCH_COALESCE_MS, BENCH_CHUNK_DELAY_MS, BENCH_SPREAD_MS
 * to vary; a delay of 1 streams 1,000 tokens a second per client, which saturates two cores by
 * itself). BENCH_DUMP=<file> writes every event's times, one line each; LICH_BENCH_NODE_ARGS
 * passes Node options to the server process (`--cpu-prof --cpu-prof-dir=<dir>`).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type EventParams, LichClient, ws_transport } from '@lich/serve/client';
import { WebSocket } from 'ws';
import type { BenchRow } from './types.js';
import { fork_worker } from './worker_process.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
/** The fake model's pause between two 4-character pieces (one token): 10 ms, 100 tokens/s. */
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 10);
/**
 * The prompts are submitted over this long (default 33 ms, one coalescing window), not in one
 * tick: 50 people do not press enter in the same millisecond, and prompts sent in lock-step keep
 * every session's 33 ms delta window in phase, so 50 events leave at the same instant, all
 * through this one process. 0 sends them in one tick.
 */
const SPREAD_MS = Number(process.env.BENCH_SPREAD_MS ?? 33);
const TARGET_MS = 2;

/** Node options of the server process (`--cpu-prof`, …). */
const NODE_ARGS = (process.env.LICH_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

const now_ns = () => Number(process.hrtime.bigint());

/** `[seq, ns, seq, ns, …]` → seq → ns. */
function by_seq(pairs: readonly number[] | undefined): Map<number, number> {
  const out = new Map<number, number>();
  for (let index = 0; index + 1 < (pairs?.length ?? 0); index += 2) {
    out.set(pairs?.[index] as number, pairs?.[index + 1] as number);
  }
  return out;
}

/** The bare socket of one session: each message `{ seq, ns }` is stamped as it arrives. */
async function bare_client(url: string, session_id: string, into: Map<number, number>) {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  socket.on('message', (data) => {
    const at = now_ns();
    const message = JSON.parse(data.toString()) as { seq: number };
    into.set(message.seq, at);
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(session_id);
  return socket;
}

export async function run(): Promise<BenchRow[]> {
  const load_before = loadavg()[0] ?? Number.NaN;
  const provider = await fork_worker('serve_provider.js', {
    BENCH_CLIENTS: String(CLIENTS),
    BENCH_CHUNK_DELAY_MS: String(CHUNK_DELAY_MS),
  });
  const server = await fork_worker(
    'serve_host.js',
    { BENCH_BASE_URL: provider.hello.base_url ?? '' },
    NODE_ARGS,
  );
  const clients: LichClient[] = [];
  const bare_sockets: WebSocket[] = [];
  try {
    const url = server.hello.url ?? '';
    const token = server.hello.token ?? '';
    /** session → seq → ns at the LichClient, and at the bare socket. */
    const at_lich = new Map<string, Map<number, number>>();
    const at_floor = new Map<string, Map<number, number>>();
    const sessions: string[] = [];
    const done: Promise<void>[] = [];
    for (let index = 0; index < CLIENTS; index += 1) {
      const client = await LichClient.connect({
        transport: ws_transport({ url, token }),
        reconnect: false,
      });
      clients.push(client);
      const { session_id } = await client.request('session.new', { title: `bench ${index}` });
      sessions.push(session_id);
      const times = new Map<number, number>();
      at_lich.set(session_id, times);
      const floor_times = new Map<number, number>();
      at_floor.set(session_id, floor_times);
      bare_sockets.push(await bare_client(server.hello.bare_url ?? '', session_id, floor_times));
      done.push(
        new Promise((resolve) => {
          client.on_event((event: EventParams) => {
            times.set(event.seq, now_ns());
            if (event.type === 'turn.completed') resolve();
          });
        }),
      );
      await client.subscribe(session_id);
    }
    // how late this process's own event loop runs: part of every figure below
    const loop_delay = monitorEventLoopDelay({ resolution: 1 });
    await new Promise((resolve) => {
      server.child.once('message', resolve);
      server.child.send({ kind: 'mark' });
    });
    loop_delay.enable();
    const cpu_at_start = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, index) => {
        if (SPREAD_MS > 0) await sleep((index * SPREAD_MS) / CLIENTS);
        return client.prompt(sessions[index] ?? '', 'go');
      }),
    );
    await Promise.all(done);
    const wall_ms = performance.now() - started;
    const client_cpu = process.cpuUsage(cpu_at_start);
    loop_delay.disable();
    const report = await new Promise<{
      arrivals: Record<string, number[]>;
      sent: Record<string, number[]>;
      peak_rss_kb: number;
      cpu_ms: number;
    }>((resolve) => {
      server.child.once('message', (message) => resolve(message as never));
      server.child.send({ kind: 'report' });
    });
    const added: number[] = [];
    const floor: number[] = [];
    const over_floor: number[] = [];
    const server_side: number[] = [];
    let missing = 0;
    for (const session_id of sessions) {
      const lich_times = at_lich.get(session_id) ?? new Map<number, number>();
      const floor_times = at_floor.get(session_id) ?? new Map<number, number>();
      const sent = by_seq(report.sent[session_id]);
      for (const [seq, host_ns] of by_seq(report.arrivals[session_id])) {
        const lich_ns = lich_times.get(seq);
        const floor_ns = floor_times.get(seq);
        const sent_ns = sent.get(seq);
        if (lich_ns === undefined) {
          missing += 1;
          continue;
        }
        added.push((lich_ns - host_ns) / 1e6);
        if (floor_ns !== undefined) {
          floor.push((floor_ns - host_ns) / 1e6);
          over_floor.push((lich_ns - floor_ns) / 1e6);
        }
        if (sent_ns !== undefined) server_side.push((sent_ns - host_ns) / 1e6);
      }
    }
    if (process.env.BENCH_DUMP) {
      // one line per event, for a closer look: session, seq, then ns at host, floor, sent, client
      const lines: string[] = [];
      for (const session_id of sessions) {
        const lich_times = at_lich.get(session_id);
        const floor_times = at_floor.get(session_id);
        const sent = by_seq(report.sent[session_id]);
        for (const [seq, host_ns] of by_seq(report.arrivals[session_id])) {
          const times = [floor_times?.get(seq), sent.get(seq), lich_times?.get(seq)];
          lines.push([session_id, seq, host_ns, ...times.map((ns) => ns ?? '')].join('\t'));
        }
      }
      writeFileSync(process.env.BENCH_DUMP, `${lines.join('\n')}\n`);
    }
    for (const list of [added, floor, over_floor, server_side]) list.sort((a, b) => a - b);
    const p99 = percentile(added, 99);
    const floor_p99 = percentile(floor, 99);
    const over_p99 = percentile(over_floor, 99);
    const rss_mb = report.peak_rss_kb / 1024;
    const rate = Math.round(1000 / CHUNK_DELAY_MS);
    const load = `load ${load_before.toFixed(1)} → ${(loadavg()[0] ?? Number.NaN).toFixed(1)}`;
    const label = `${CLIENTS} clients × 2,000 tokens at ≤${rate} tokens/s each, ${load} (${added.length} events, ${missing} missing, ${(wall_ms / 1000).toFixed(1)} s)`;
    const pair = (metric: string, sorted: number[]): BenchRow => ({
      bench: 'serve',
      metric,
      lich: percentile(sorted, 50),
      baseline: percentile(sorted, 99),
      baseline_name: 'p99',
      unit: 'ms',
    });
    return [
      pair(`added latency p50 / p99: host listener → LichClient, ${label}`, added),
      {
        bench: 'serve',
        metric: `added latency p99 (the issue's figure; it includes the floor: needs a quiet machine)`,
        lich: p99,
        unit: 'ms',
        target: `p99 <= ${TARGET_MS} ms`,
        pass: p99 <= TARGET_MS && missing === 0,
      },
      pair('floor p50 / p99: host listener → a bare ws message, same moments', floor),
      pair('Lich over the floor p50 / p99, per event (LichClient − bare ws)', over_floor),
      {
        bench: 'serve',
        metric: "Lich over the floor p99: what Lich's protocol and client add",
        lich: over_p99,
        baseline: floor_p99,
        baseline_name: 'floor p99',
        unit: 'ms',
        target: `p99 <= ${TARGET_MS} ms`,
        pass: over_p99 <= TARGET_MS && missing === 0,
      },
      pair('of which in the server (its listener: encode + ws.send) p50 / p99', server_side),
      {
        bench: 'serve',
        metric: "the clients' event loop delay p50 / p99",
        lich: loop_delay.percentile(50) / 1e6,
        baseline: loop_delay.percentile(99) / 1e6,
        baseline_name: 'p99',
        unit: 'ms',
      },
      {
        bench: 'serve',
        metric: 'CPU during the run, % of one core: the server (baseline: the 50 clients)',
        lich: (100 * report.cpu_ms) / wall_ms,
        baseline: (100 * (client_cpu.user + client_cpu.system)) / 1000 / wall_ms,
        baseline_name: 'clients',
        unit: '%',
      },
      {
        bench: 'serve',
        metric: 'server peak RSS',
        lich: rss_mb,
        unit: 'MB',
        target: '<= 200 MB',
        pass: rss_mb <= 200,
      },
    ];
  } finally {
    for (const socket of bare_sockets) socket.close();
    for (const client of clients) await client.close();
    server.child.disconnect();
    provider.child.disconnect();
  }
}

/**
 * `lich serve` under load: 50 WebSocket clients, each with its own session, each streaming a
 * 2,000-token answer at the same time. Three processes: the fake model (`serve_provider.ts`), the
 * server (`serve_host.ts`: the real host and `start_ws_server`), and this one with the 50
 * `LichClient`s. For every event, the time it reached a client minus the time it reached a
 * listener on the same host in the server's own process is the delivery latency the protocol
 * adds (JSON encoding, the socket, parsing, the client). Reported: p50 and p99 of that over every
 * event, and the server's peak RSS. Targets: p99 ≤ 2 ms, RSS ≤ 200 MB.
 *
 * The bare `ws` floor is measured twice: on its own before the load, and beside it (its own server
 * process and clients in this one), so what the machine's load adds to any message can be told
 * from what Lich adds.
 *
 * Run: `pnpm bench:serve` (BENCH_CLIENTS, BENCH_COALESCE_MS, BENCH_CHUNK_DELAY_MS to vary).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type EventParams, LichClient, ws_transport } from '@lich/serve/client';
import type { BenchRow } from './types.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
/**
 * The fake model's pause between two 4-character pieces (one token): 1 ms by default, 1,000
 * tokens a second per client, 50,000 a second in all, which saturates two cores on its own.
 */
const CHUNK_DELAY_MS = Number(process.env.BENCH_CHUNK_DELAY_MS ?? 1);

function start(
  script: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; hello: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(import.meta.dirname, script), [], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (hello) => resolve({ child, hello: hello as Record<string, string> }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}`)));
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/**
 * `CLIENTS` bare `ws` clients of a bare `ws` server in another process (see `serve_floor.ts`),
 * each latency handed to `on_latency`. No Lich at all: what one WebSocket message between two
 * processes costs on this machine, under whatever load there is at the time.
 */
async function floor_clients(
  url: string,
  on_latency: (ms: number) => void,
  until_seq?: number,
): Promise<{ done: Promise<void>; close(): void }> {
  const { WebSocket } = await import('ws');
  const sockets: import('ws').WebSocket[] = [];
  const finished: Promise<void>[] = [];
  for (let index = 0; index < CLIENTS; index += 1) {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    sockets.push(socket);
    finished.push(
      new Promise<void>((resolve, reject) => {
        socket.on('error', reject);
        socket.on('message', (data) => {
          const now = process.hrtime.bigint();
          const message = JSON.parse(data.toString()) as { seq: number; sent_ns: string };
          on_latency(Number(now - BigInt(message.sent_ns)) / 1e6);
          if (message.seq === until_seq) resolve();
        });
      }),
    );
  }
  await Promise.all(
    sockets.map((socket) => new Promise((resolve) => socket.once('open', resolve))),
  );
  return {
    done: Promise.all(finished).then(() => undefined),
    close: () => {
      for (const socket of sockets) socket.close();
    },
  };
}

/** The floor on a quiet machine, before the load: 300 messages to each client, 20 ms apart. */
async function floor(): Promise<{ p50: number; p99: number; count: number }> {
  const messages = Number(process.env.BENCH_FLOOR_MESSAGES ?? 300);
  const server = await start('serve_floor.js', { BENCH_FLOOR_MESSAGES: String(messages) });
  const latencies: number[] = [];
  try {
    const clients = await floor_clients(
      server.hello.url ?? '',
      (ms) => latencies.push(ms),
      messages,
    );
    await clients.done;
    clients.close();
  } finally {
    server.child.disconnect();
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: latencies.length,
  };
}

export async function run(): Promise<BenchRow[]> {
  const bare = await floor();
  const provider = await start('serve_provider.js', {
    BENCH_CLIENTS: String(CLIENTS),
    BENCH_CHUNK_DELAY_MS: String(CHUNK_DELAY_MS),
  });
  // the same bare floor again, running beside the load: what the machine adds to any message now
  const loaded_floor = await start('serve_floor.js', { BENCH_FLOOR_MESSAGES: '1000000' });
  const floor_during: number[] = [];
  let measuring = false;
  const floor_peers = await floor_clients(loaded_floor.hello.url ?? '', (ms) => {
    if (measuring) floor_during.push(ms);
  });
  const server = await start('serve_host.js', {
    BENCH_BASE_URL: provider.hello.base_url ?? '',
  });
  const clients: LichClient[] = [];
  try {
    const url = server.hello.url ?? '';
    const token = server.hello.token ?? '';
    /** session → seq → ns at the client. */
    const received = new Map<string, Map<number, bigint>>();
    const done: Promise<void>[] = [];
    for (let index = 0; index < CLIENTS; index += 1) {
      const client = await LichClient.connect({
        transport: ws_transport({ url, token }),
        reconnect: false,
      });
      clients.push(client);
      const { session_id } = await client.request('session.new', { title: `bench ${index}` });
      const times = new Map<number, bigint>();
      received.set(session_id, times);
      done.push(
        new Promise((resolve) => {
          client.on_event((event: EventParams) => {
            times.set(event.seq, process.hrtime.bigint());
            if (event.type === 'turn.completed') resolve();
          });
        }),
      );
      await client.subscribe(session_id);
    }
    // how late this process's own event loop runs: the clients' share of the latency
    const loop_delay = monitorEventLoopDelay({ resolution: 1 });
    loop_delay.enable();
    const started = performance.now();
    measuring = true;
    await Promise.all(
      clients.map((client, index) => client.prompt([...received.keys()][index] ?? '', 'go')),
    );
    await Promise.all(done);
    measuring = false;
    const wall_ms = performance.now() - started;
    loop_delay.disable();
    const report = await new Promise<{
      arrivals: Record<string, [number, string][]>;
      sent: Record<string, [number, string][]>;
      peak_rss_kb: number;
    }>((resolve) => {
      server.child.once('message', (message) => resolve(message as never));
      server.child.send({ kind: 'report' });
    });
    const added: number[] = [];
    let missing = 0;
    for (const [session_id, times] of received) {
      for (const [seq, host_ns] of report.arrivals[session_id] ?? []) {
        const client_ns = times.get(seq);
        if (client_ns === undefined) missing += 1;
        else added.push(Number(client_ns - BigInt(host_ns)) / 1e6);
      }
    }
    added.sort((a, b) => a - b);
    // the server's own share: from the in-process listener to the return of ws.send
    const server_side: number[] = [];
    for (const [session_id, host_times] of Object.entries(report.arrivals)) {
      const at = new Map(host_times.map(([seq, ns]) => [seq, BigInt(ns)]));
      for (const [seq, ns] of report.sent[session_id] ?? []) {
        const start = at.get(seq);
        if (start !== undefined) server_side.push(Number(BigInt(ns) - start) / 1e6);
      }
    }
    server_side.sort((a, b) => a - b);
    const p50 = percentile(added, 50);
    const p99 = percentile(added, 99);
    floor_during.sort((a, b) => a - b);
    const floor_p99 = percentile(floor_during, 99);
    const rss_mb = report.peak_rss_kb / 1024;
    const rate = Math.round(1000 / CHUNK_DELAY_MS);
    const label = `${CLIENTS} clients × 2,000 tokens at ≤${rate} tokens/s each (${added.length} events, ${missing} missing, ${(wall_ms / 1000).toFixed(1)} s)`;
    const load = (await import('node:os')).loadavg()[0]?.toFixed(1) ?? '?';
    return [
      {
        bench: 'serve',
        metric: `bare ws floor p50 / p99 (${bare.count} messages, load ${load})`,
        lich: bare.p50,
        baseline: bare.p99,
        baseline_name: 'p99',
        unit: 'ms',
      },
      {
        bench: 'serve',
        metric: `bare ws floor during the run p50 / p99 (${floor_during.length} messages)`,
        lich: percentile(floor_during, 50),
        baseline: floor_p99,
        baseline_name: 'p99',
        unit: 'ms',
      },
      { bench: 'serve', metric: `added latency p50, ${label}`, lich: p50, unit: 'ms' },
      {
        bench: 'serve',
        metric: 'of which in the server (encode + ws.send) p50 / p99',
        lich: percentile(server_side, 50),
        baseline: percentile(server_side, 99),
        baseline_name: 'p99',
        unit: 'ms',
      },
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
        metric: 'added latency p99',
        lich: p99,
        unit: 'ms',
        target: 'p99 <= 2 ms',
        pass: p99 <= 2 && missing === 0,
      },
      {
        bench: 'serve',
        metric: 'added latency p99 above the bare ws floor during the run',
        lich: p99 - floor_p99,
        unit: 'ms',
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
    floor_peers.close();
    loaded_floor.child.disconnect();
    for (const client of clients) await client.close();
    server.child.disconnect();
    provider.child.disconnect();
  }
}

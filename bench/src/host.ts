/**
 * The `SessionHost` under load: 50 sessions streaming a 2,000-token answer each, at once, through
 * one host, against the testkit's fake OpenAI server (`serve_provider.ts`, its own process).
 * The measured process (`host_worker.ts`) alternates rounds without the host (`Agent.run`, its
 * events read by a listener) and with it (its events read by a subscriber), bare, host, host,
 * bare…, so warm-up and load fall on both alike. Reported: the latency of each text event from
 * the provider handing the delta to the loop to its reader, p50 and p99 of every event of each
 * kind of round; the host's added latency (host minus bare); the event loop's delay; and the
 * measured process's peak RSS (VmHWM; the fake model's process is not counted), beside the peak
 * after the first round, which runs without the host. Targets: p99 added ≤ 1 ms, RSS ≤ 150 MB.
 * The fake model streams each answer at up to 1,000 tokens a second (a piece a millisecond), so
 * the host's per-event path is paid 50,000 times a second. Linux only (it reads /proc).
 * `pnpm bench:host` (BENCH_SESSIONS, BENCH_ROUNDS, BENCH_COALESCE_MS to vary).
 */
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import type { BenchRow } from './types.js';
import { fork_worker } from './worker_process.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 50);
/** Rounds of each kind. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const NODE_ARGS = (process.env.LICH_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

interface RoundResult {
  kind: 'round';
  latencies: number[];
  mismatched: number;
  loop_delay_p99_ms: number;
  wall_ms: number;
  rss_kb: number;
}

function ask<T>(child: ChildProcess, message: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (answer: { kind: string; error?: string }) => {
      if (answer.kind === 'failed') reject(new Error(answer.error));
      else resolve(answer as T);
    });
    child.send(message);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export async function run(): Promise<BenchRow[]> {
  // every round of both kinds takes one scripted answer per session
  const provider = await fork_worker('serve_provider.js', {
    BENCH_CLIENTS: String(SESSIONS * ROUNDS * 2),
    BENCH_CHUNK_DELAY_MS: '1',
  });
  const worker = await fork_worker(
    'host_worker.js',
    { BENCH_SESSIONS: String(SESSIONS), BENCH_BASE_URL: provider.hello.base_url ?? '' },
    NODE_ARGS,
  );
  try {
    const results = { bare: [] as RoundResult[], host: [] as RoundResult[] };
    for (let index = 0; index < ROUNDS * 2; index += 1) {
      // bare, host, host, bare, bare, host…
      const kind = Math.floor((index + 1) / 2) % 2 === 0 ? 'bare' : 'host';
      results[kind].push(await ask<RoundResult>(worker.child, { kind: 'run', round: kind }));
    }
    // the first round is a bare one: the peak so far is that of the process without the host
    const bare_rss_mb = (results.bare[0]?.rss_kb ?? Number.NaN) / 1024;
    const report = await ask<{ peak_rss_kb: number }>(worker.child, { kind: 'report' });
    const summary = (kind: 'bare' | 'host') => {
      const latencies = results[kind].flatMap((result) => result.latencies).sort((a, b) => a - b);
      return {
        count: latencies.length,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        mismatched: results[kind].reduce((sum, result) => sum + result.mismatched, 0),
        loop_p99: Math.max(...results[kind].map((result) => result.loop_delay_p99_ms)),
        wall_s: Math.max(...results[kind].map((result) => result.wall_ms)) / 1000,
      };
    };
    const bare = summary('bare');
    const hosted = summary('host');
    const added_p50 = hosted.p50 - bare.p50;
    const added_p99 = hosted.p99 - bare.p99;
    const rss_mb = report.peak_rss_kb / 1024;
    const load = loadavg()[0]?.toFixed(1) ?? '?';
    const label = `${SESSIONS} sessions × 2,000 tokens, ${ROUNDS} rounds each, load ${load}`;
    return [
      {
        bench: 'host',
        metric: `delta → reader p50, ${label} (${hosted.count} host events, ${bare.count} bare)`,
        lich: hosted.p50,
        baseline: bare.p50,
        baseline_name: 'no host',
        unit: 'ms',
      },
      {
        bench: 'host',
        metric: 'delta → reader p99',
        lich: hosted.p99,
        baseline: bare.p99,
        baseline_name: 'no host',
        unit: 'ms',
      },
      {
        bench: 'host',
        metric: 'event loop delay p99 (worst round)',
        lich: hosted.loop_p99,
        baseline: bare.loop_p99,
        baseline_name: 'no host',
        unit: 'ms',
      },
      {
        bench: 'host',
        metric: `longest round (s); sessions whose event count differed: ${hosted.mismatched}`,
        lich: hosted.wall_s,
        baseline: bare.wall_s,
        baseline_name: 'no host',
        unit: 's',
      },
      { bench: 'host', metric: 'added latency p50', lich: added_p50, unit: 'ms' },
      {
        bench: 'host',
        metric: 'added latency p99',
        lich: added_p99,
        unit: 'ms',
        target: 'p99 added <= 1 ms',
        pass: added_p99 <= 1 && hosted.mismatched === 0,
      },
      {
        bench: 'host',
        metric:
          'peak RSS of the measured process (whole run; baseline: after its first round, bare)',
        lich: rss_mb,
        baseline: bare_rss_mb,
        baseline_name: 'no host yet',
        unit: 'MB',
        target: '<= 150 MB',
        pass: rss_mb <= 150,
      },
    ];
  } finally {
    worker.child.disconnect();
    provider.child.disconnect();
  }
}

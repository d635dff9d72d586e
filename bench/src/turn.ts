/**
 * What one more turn costs: `lich --no-session` as a person runs a one-shot (a new process),
 * asked to read a file once per turn, against a bare `node:http` + SSE loop sending the same
 * requests (the same system prompt, tool definitions and growing history, taken from Lich's own
 * first request) to the same fake server in the same run. Each round runs both at 2, 20 and 200
 * turns, and four times as many rounds again run only 2 and 20 turns.
 *
 * CPU (the target): each process is started with a preload (`CPU_MARKS_SCRIPT`) that reads
 * `process.cpuUsage()` (user + system, every thread, in microseconds) as each model request
 * starts, through Node's `http.client.request.start` diagnostics channel, and writes the marks
 * when the process exits. A turn's CPU is the mark of one request to the next: the tool call, the
 * next request built and sent, the answer read. Per run:
 * - at 20 turns: (mark 20 − mark 2) / 18;
 * - at 200 turns: (mark 200 − mark 20) / 180, where each request carries up to 400 messages;
 * the median over the runs. Start-up and exit are outside the marks, so the figure does not move
 * with them (the old one, (T(20) − T(2)) / 18 over whole processes timed to the millisecond,
 * moved by ±0.4 ms from run to run on the same code).
 * Target (absolute, since a turn's model call takes hundreds of milliseconds, which a ratio
 * against a zero-latency fake hides): Lich's CPU per turn at most 0.5 ms over the bare loop's, at
 * 20 and at 200 turns.
 *
 * Wall time per extra turn is reported too, without a target, as a paired difference of whole
 * runs, (T(20) − T(2)) / 18 and (T(200) − T(20)) / 180, so start-up and exit cancel out. Each row
 * names what it compares: `lich --no-session` (the one-shot as a person runs it) against the bare
 * loop.
 *
 * Where the 20-turn difference lies (measured with these marks in both processes): not in Node's
 * HTTP work, which is the same in both, but in Lich's own code of a turn (some 190 functions, most
 * run once a turn), which runs before V8 has feedback for it (a function run once a turn gets it
 * after about eight turns) and in the interpreter until Sparkplug compiles it. The largest part
 * was the tool call's way (executor, path guard, `read_file`). At 200 turns part of it grows with
 * the history: Lich converts its messages to the wire format each turn (`to_openai_messages`),
 * where the bare loop sends its own array as it is.
 *
 * What the mean holds besides a turn's own work (measured with `--trace-opt`, `--trace-gc` and a
 * mark per turn, bare loop at 1.1–1.9 ms a turn): between requests 20 and 200 V8's optimizing
 * compiler spends some 90 ms more on Lich's hot functions than on the bare loop's (the tool
 * executor's call, the wire conversion, `path.relative`), about 0.5 ms a turn of the mean; in the
 * first turns, the collection of what start-up left behind (one scavenge of 7–15 ms that lands in
 * turn 1 or in turn 2 by chance, which moves the 2-to-20 mean by up to 0.8 ms). The median turn's
 * CPU (reported, no target) leaves those one-off costs out.
 *
 * On a shared machine the figure still moves: V8's compiler and GC threads count in the CPU
 * time, and their share of an early turn varies. Compare builds in one run, pair by pair, or by
 * the instructions (case `instructions`, `turn_instructions.ts`), which do not move.
 *
 * What the instructions say (2026-12-06, after the executor's hooks left `#call`): from 20 to 200
 * turns Lich runs some 5.9 M instructions a turn, the bare loop 4.0 M. Of the 1.9 M more, 0.5 M is
 * one full garbage collection the bare loop never needs (the young generation start-up grew leaves
 * too little room under V8's first old-generation limit), 0.45 M property lookups and 0.35 M other
 * builtins of code not yet optimized, 0.25 M V8's optimizing compiler on Lich's hot functions (the
 * wire conversion, `to_openai_messages`, the largest), 0.2 M optimized code; JSON costs both the
 * same. From 2 to 20 turns (4.9 M against 2.75 M) nearly all of the 2.1 M more is Lich's code
 * running before V8 has optimized it: property lookups 0.75 M, builtins 0.5 M, V8's runtime 0.8 M.
 *
 * What does not close the gap (measured 2026-12-06, so nobody measures it again):
 * - Lich's features on the way: without the progress lines (`-q`) the 2-to-20 difference is
 *   2.54 M instructions instead of 2.58 M, with the permission gate answering yolo too 2.52 M.
 *   The difference is the amount of Lich's code a turn runs, not one part of it: a sampled
 *   profile (`perf` with `--perf-basic-prof`) is flat, the largest part (the path guard's system
 *   calls for a 21-byte file) some 4 % of the main thread.
 * - V8 flags that tier code up sooner: `--always-sparkplug` halves the 2-to-20 CPU difference
 *   (0.83 → 0.42 ms), `--no-lazy-feedback-allocation` too (→ 0.38 ms), but a 2-turn one-shot then
 *   takes 142 / 123 ms instead of 100 ms from start to exit: the figure a user notices gets worse.
 *   Set at the first request instead, the 2-turn one-shot took 185 ms (V8 checks its code cache
 *   against the flags; not pursued).
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { start_openai_server } from '@lich/testkit';
import {
  BIN,
  bare_turn,
  ensure_fresh_bundle,
  make_sandbox,
  run_process,
  script,
} from './cli_process.js';
import { median } from './stats.js';
import { instruction_rows } from './turn_instructions.js';
import type { BenchRow } from './types.js';

/**
 * `cpu`: the CPU time per turn, read in each process (the target); `instructions`: the
 * instructions per turn counted by callgrind, deterministic (`turn_instructions.ts`). Both by
 * default.
 */
export const cases = ['cpu', 'instructions'] as const;

// Nine rounds: with five, one round disturbed by another process moved the medians by 20 %.
const ROUNDS = Number(process.env.LICH_BENCH_TURN_ROUNDS ?? 9);
/**
 * Rounds of only the 2- and 20-turn runs, added to the full ones, for the wall time per turn at
 * 20 turns: a difference of 18 turns between whole processes of 100–250 ms needs many pairs to
 * settle. (The CPU figure, read inside the processes, needs none.)
 */
const SMALL_ROUNDS = ROUNDS * 4;
const SIZES = [2, 20, 200] as const;
const SMALL_SIZES = [2, 20] as const;
/** The most CPU a Lich turn may cost over a bare loop's, in milliseconds. */
const TARGET_CPU_OVER_MS = 0.5;
const TASK = 'read notes.txt again and again';

/**
 * The bare loop: Lich's first request as a template (`BARE_REQUEST_FILE`), then per turn one
 * POST through a keep-alive `node:http` agent, the SSE read line by line, each tool call's file
 * read, and the answer written to stdout.
 */
const BARE_HTTP_SCRIPT = `
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
const template = JSON.parse(readFileSync(process.env.BARE_REQUEST_FILE, 'utf8'));
const url = new URL(process.env.BARE_BASE_URL + '/chat/completions');
const agent = new http.Agent({ keepAlive: true });
const messages = [...template.messages.slice(0, -1), { role: 'user', content: process.argv[2] }];
const post = (body) => new Promise((resolve, reject) => {
  const request = http.request(url, { method: 'POST', agent, headers: {
    'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, resolve);
  request.on('error', reject);
  request.end(body);
});
for (;;) {
  const response = await post(JSON.stringify({ ...template, messages }));
  response.setEncoding('utf8');
${bare_turn('response')}
}
agent.destroy();
`;

/**
 * The preload of every measured process: the process's CPU time (`process.cpuUsage()`, user +
 * system of every thread) as each model request starts (Node's `http.client.request.start`
 * channel, requests to `/chat/completions` only), in milliseconds, written as a JSON array to
 * `CPU_MARKS_FILE` when the process exits.
 */
const CPU_MARKS_SCRIPT = `
const channel = require('node:diagnostics_channel');
const { writeFileSync } = require('node:fs');
const marks = [];
channel.subscribe('http.client.request.start', ({ request }) => {
  if (!String(request.path).endsWith('/chat/completions')) return;
  const { user, system } = process.cpuUsage();
  marks.push((user + system) / 1000);
});
process.on('exit', () => writeFileSync(process.env.CPU_MARKS_FILE, JSON.stringify(marks)));
`;

/** A run's wall time, and its CPU time as each model request started (`CPU_MARKS_SCRIPT`), in ms. */
interface Timing {
  wall: number;
  marks: number[];
}

/** Runs `node --require <marks> <args>`, timing it and reading its CPU marks. */
function timed_process(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; marks_script: string; marks_file: string },
): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--require', options.marks_script, ...args], {
      cwd: options.cwd,
      env: { ...options.env, CPU_MARKS_FILE: options.marks_file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = performance.now() - start;
      if (code !== 0) {
        reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
        return;
      }
      readFile(options.marks_file, 'utf8').then(
        (text) => resolve({ wall, marks: JSON.parse(text) as number[] }),
        reject,
      );
    });
  });
}

export async function run(asked: readonly string[] = []): Promise<BenchRow[]> {
  const wants = (name: (typeof cases)[number]) => asked.length === 0 || asked.includes(name);
  ensure_fresh_bundle();
  const server = await start_openai_server({ record_requests: false });
  const sandbox = await make_sandbox(server);
  const bare_script = join(sandbox.dir, 'bare_http.mjs');
  await writeFile(bare_script, BARE_HTTP_SCRIPT);
  const request_file = join(sandbox.dir, 'request.json');
  const env = { ...sandbox.env, BARE_REQUEST_FILE: request_file };
  const lich_args = (turns: number) => [
    BIN,
    '--no-session',
    '--max-turns',
    String(turns + 10),
    TASK,
  ];
  const marks_script = join(sandbox.dir, 'cpu_marks.cjs');
  await writeFile(marks_script, CPU_MARKS_SCRIPT);
  const marks_file = join(sandbox.dir, 'cpu_marks.json');
  const time = async (args: string[], turns: number): Promise<Timing> => {
    server.enqueue(...script(turns));
    return timed_process(args, { cwd: sandbox.dir, env, marks_script, marks_file });
  };
  const rows: BenchRow[] = [];
  try {
    // Lich's first request is the bare loop's template: the same prompt, tools and fields.
    const recorder = await start_openai_server();
    try {
      recorder.enqueue(...script(1));
      await run_process(process.execPath, lich_args(1), {
        cwd: sandbox.dir,
        env: { ...env, LICH_BASE_URL: recorder.base_url },
      });
      await writeFile(request_file, JSON.stringify(recorder.requests[0]?.body));
    } finally {
      await recorder.close();
    }
    const bare_args = (_turns: number) => [bare_script, TASK];
    // a warm-up of each, so the code cache and the file cache are what a user's second run sees
    await time(lich_args(20), 20);
    await time(bare_args(20), 20);
    if (wants('cpu')) {
      const times = {
        lich: new Map<number, Timing[]>(SIZES.map((size) => [size, []])),
        bare: new Map<number, Timing[]>(SIZES.map((size) => [size, []])),
      };
      for (let round = 0; round < ROUNDS + SMALL_ROUNDS; round++) {
        for (const turns of round < ROUNDS ? SIZES : SMALL_SIZES) {
          const order = round % 2 === 0 ? (['bare', 'lich'] as const) : (['lich', 'bare'] as const);
          for (const who of order) {
            const args = who === 'lich' ? lich_args(turns) : bare_args(turns);
            times[who].get(turns)?.push(await time(args, turns));
          }
        }
      }
      /**
       * Wall: per round, (T(to) − T(from)) / (to − from); the median over the rounds that ran both
       * (all of them for 2 and 20 turns, the full ones for 200).
       */
      const wall_per_turn = (who: 'lich' | 'bare', from: number, to: number) => {
        const low = times[who].get(from) ?? [];
        const high = times[who].get(to) ?? [];
        return median(
          high.map((value, index) => (value.wall - (low[index]?.wall ?? 0)) / (to - from)),
        );
      };
      /** The runs of `who` with at least `turns` turns. */
      const runs_of = (who: 'lich' | 'bare', turns: number) =>
        [...times[who]].filter(([size]) => size >= turns).flatMap(([, timings]) => timings);
      /** A mark's request-to-request CPU, from request `from` to `to` (1-based). */
      const span = (marks: number[], from: number, to: number) =>
        (marks[to - 1] ?? Number.NaN) - (marks[from - 1] ?? Number.NaN);
      /**
       * CPU: per run of at least `to` turns, (mark of request `to` − mark of request `from`) /
       * (to − from); the median over those runs.
       */
      const cpu_per_turn = (who: 'lich' | 'bare', from: number, to: number) =>
        median(runs_of(who, to).map(({ marks }) => span(marks, from, to) / (to - from)));
      /**
       * The CPU of a run's median turn (request to request) from `from` to `to`, the median over
       * the runs: a turn's steady work, without the one-off costs a mean spreads over the turns (the
       * start-up's garbage collected in the first turns, V8 compiling the hot functions, an
       * occasional full collection). No target: it shows how much of the mean those are.
       */
      const cpu_median_turn = (who: 'lich' | 'bare', from: number, to: number) =>
        median(
          runs_of(who, to).map(({ marks }) => {
            const turns: number[] = [];
            for (let request = from + 1; request <= to; request++) {
              turns.push(span(marks, request - 1, request));
            }
            return median(turns);
          }),
        );
      /** One row of Lich against the bare loop. */
      const row = (metric: string, lich: number, bare: number, target?: string, pass?: boolean) => {
        rows.push({
          bench: 'turn',
          metric,
          lich,
          baseline: bare,
          baseline_name: 'node:http + SSE loop',
          unit: 'ms',
          ratio: lich / bare,
          ...(target === undefined ? {} : { target, pass }),
        });
      };
      const windows = [
        [2, 20],
        [20, 200],
      ] as const;
      for (const [from, to] of windows) {
        const rounds = to === 200 ? ROUNDS : ROUNDS + SMALL_ROUNDS;
        row(
          `one-shot wall per extra turn at ${to} turns: (T${to} - T${from}) / ${to - from}, median of ${rounds}`,
          wall_per_turn('lich', from, to),
          wall_per_turn('bare', from, to),
        );
      }
      for (const [from, to] of windows) {
        const lich = cpu_per_turn('lich', from, to);
        const bare = cpu_per_turn('bare', from, to);
        const over = lich - bare;
        row(
          `cpu per turn from request ${from} to ${to}, in the process, median of ${runs_of('lich', to).length} (over the bare loop: ${over.toFixed(2)} ms)`,
          lich,
          bare,
          `lich - bare <= ${TARGET_CPU_OVER_MS} ms`,
          over <= TARGET_CPU_OVER_MS,
        );
      }
      for (const [from, to] of windows) {
        const lich = cpu_median_turn('lich', from, to);
        const bare = cpu_median_turn('bare', from, to);
        row(
          `cpu of the median turn from request ${from} to ${to}, in the process (over the bare loop: ${(lich - bare).toFixed(2)} ms)`,
          lich,
          bare,
        );
      }
      for (const turns of SIZES) {
        row(
          `one-shot of ${turns} turns, wall, median of ${times.lich.get(turns)?.length ?? 0}`,
          median((times.lich.get(turns) ?? []).map((timing) => timing.wall)),
          median((times.bare.get(turns) ?? []).map((timing) => timing.wall)),
        );
      }
    }
    if (wants('instructions')) {
      rows.push(
        ...(await instruction_rows({ server, dir: sandbox.dir, env, lich_args, bare_args })),
      );
    }
  } finally {
    await server.close();
    await rm(sandbox.dir, { recursive: true, force: true });
  }
  return rows;
}

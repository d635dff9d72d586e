/**
 * The `lich` command end to end, as a person runs it (a new process each time), against the
 * testkit's fake OpenAI server:
 * - `lich --version` against `node -e 0` (startup);
 * - a one-shot task with one tool call (read_file, then the answer) against a bare script that
 *   makes the same two streaming requests with `fetch`, reads the SSE and the file (with
 *   `--no-session`, the same work as the script; and once more as run by default, recorded);
 * - the peak RSS of that one-shot.
 * The cost of each further turn is `bench:turn`'s. Each comparison alternates Lich and its
 * baseline over several rounds and reports medians. Targets: `--version` at most 1.3× `node -e 0`,
 * the one-shot no slower than the bare script (1.0×), a peak RSS of at most 80 MB.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { start_openai_server } from '@lich/testkit';
import { BIN, ensure_fresh_bundle, make_sandbox, run_process, script } from './cli_process.js';
import { alternate, median } from './stats.js';
import type { BenchRow } from './types.js';

const STARTUP_ROUNDS = 21;
const ONE_SHOT_ROUNDS = 11;
/** `lich --version` against `node -e 0`. */
const TARGET_STARTUP_RATIO = 1.3;
/** The one-shot against a bare `fetch` script doing the same two requests. */
const TARGET_ONE_SHOT_RATIO = 1.0;
const TARGET_RSS_MB = 80;

export async function run(): Promise<BenchRow[]> {
  ensure_fresh_bundle();
  const server = await start_openai_server();
  const sandbox = await make_sandbox(server);
  const lich = (args: string[], node_args: string[] = [], env = sandbox.env) =>
    run_process(process.execPath, [...node_args, BIN, ...args], { cwd: sandbox.dir, env });
  const bare = () =>
    run_process(process.execPath, [sandbox.bare, 'read notes.txt'], {
      cwd: sandbox.dir,
      env: sandbox.env,
    });
  const rows: BenchRow[] = [];
  try {
    const startup = await alternate(
      STARTUP_ROUNDS,
      () => lich(['--version']),
      () => run_process(process.execPath, ['-e', '0'], { cwd: sandbox.dir, env: sandbox.env }),
    );
    rows.push({
      bench: 'cli',
      metric: 'lich --version',
      lich: startup.lich_ms,
      baseline: startup.baseline_ms,
      baseline_name: 'node -e 0',
      unit: 'ms',
      ratio: startup.ratio,
      target: `ratio <= ${TARGET_STARTUP_RATIO}`,
      pass: startup.ratio <= TARGET_STARTUP_RATIO,
    });

    const one_shot = await alternate(
      ONE_SHOT_ROUNDS,
      async () => {
        server.enqueue(...script(2));
        await lich(['--no-session', 'read notes.txt']);
      },
      async () => {
        server.enqueue(...script(2));
        await bare();
      },
    );
    rows.push({
      bench: 'cli',
      metric: 'one-shot, 1 tool call',
      lich: one_shot.lich_ms,
      baseline: one_shot.baseline_ms,
      baseline_name: 'fetch + SSE script',
      unit: 'ms',
      ratio: one_shot.ratio,
      target: `ratio <= ${TARGET_ONE_SHOT_RATIO}`,
      pass: one_shot.ratio <= TARGET_ONE_SHOT_RATIO,
    });

    // The same task as a person runs it by default: recorded in a session file.
    const recorded = await alternate(
      ONE_SHOT_ROUNDS,
      async () => {
        server.enqueue(...script(2));
        await lich(['read notes.txt']);
      },
      async () => {
        server.enqueue(...script(2));
        await bare();
      },
    );
    rows.push({
      bench: 'cli',
      metric: 'one-shot, 1 tool call, with session',
      lich: recorded.lich_ms,
      baseline: recorded.baseline_ms,
      baseline_name: 'fetch + SSE script',
      unit: 'ms',
      ratio: recorded.ratio,
    });

    const rss_values: number[] = [];
    for (let round = 0; round < 5; round++) {
      const file = join(sandbox.dir, `rss-${round}`);
      server.enqueue(...script(2));
      await lich(['read notes.txt'], ['--import', sandbox.rss_reporter], {
        ...sandbox.env,
        LICH_RSS_FILE: file,
      });
      rss_values.push(Number(await readFile(file, 'utf8')) / 1024);
    }
    const rss = median(rss_values);
    rows.push({
      bench: 'cli',
      metric: 'one-shot peak RSS',
      lich: rss,
      unit: 'MB',
      target: `<= ${TARGET_RSS_MB} MB`,
      pass: rss <= TARGET_RSS_MB,
    });
  } finally {
    await server.close();
    await rm(sandbox.dir, { recursive: true, force: true });
  }
  return rows;
}

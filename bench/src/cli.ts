/**
 * The `lich` command end to end, as a person runs it (a new process each time), against the
 * testkit's fake OpenAI server:
 * - `lich --version` against `node -e 0` (startup);
 * - a one-shot task with one tool call (read_file, then the answer) against a bare script that
 *   makes the same two streaming requests with `fetch`, reads the SSE and the file (with
 *   `--no-session`, the same work as the script; and once more as run by default, recorded);
 * - the peak RSS of that one-shot;
 * - the per-turn overhead over a 200-turn task: (lich − bare) per extra turn, from 20 to 110 and
 *   from 110 to 200 turns, so a cost that grows with the history shows.
 * Each comparison alternates Lich and its baseline over several rounds and reports medians.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, type ScriptStep, start_openai_server } from '@lich/testkit';
import { alternate, median } from './stats.js';
import type { BenchRow } from './types.js';

const BIN =
  process.env.LICH_BENCH_BIN ??
  fileURLToPath(new URL('../../apps/cli/dist/bin.cjs', import.meta.url));
const STARTUP_ROUNDS = 21;
const ONE_SHOT_ROUNDS = 11;
const TURN_ROUNDS = 5;
const TARGET_RATIO = 1.3;
const TARGET_RSS_MB = 100;
const TARGET_TURN_MS = 2;

/** The bare client: the same requests as Lich, by hand, with fetch and a minimal SSE reader. */
const BARE_SCRIPT = `
import { readFile } from 'node:fs/promises';
const base = process.env.BARE_BASE_URL;
const messages = [
  { role: 'system', content: 'You are a bare client.' },
  { role: 'user', content: process.argv[2] ?? 'read notes.txt' },
];
const tools = [{ type: 'function', function: { name: 'read_file', description: 'Reads a file',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];
for (;;) {
  const response = await fetch(base + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake', messages, tools, stream: true }),
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let content = '';
  const calls = [];
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf('\\n')) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      const delta = JSON.parse(data).choices?.[0]?.delta ?? {};
      if (delta.content) content += delta.content;
      for (const call of delta.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
    }
  }
  if (calls.length === 0) {
    process.stdout.write(content + '\\n');
    break;
  }
  messages.push({ role: 'assistant', content, tool_calls: calls.map((call) => ({
    id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) });
  for (const call of calls) {
    const text = await readFile(JSON.parse(call.arguments).path, 'utf8');
    messages.push({ role: 'tool', tool_call_id: call.id, content: text });
  }
}
`;

/**
 * Reports the peak RSS (KB) of the process it is imported into, at exit, to LICH_RSS_FILE. On
 * Linux it reads VmHWM, the peak of this process's own memory: `resourceUsage().maxRSS` keeps the
 * high-water mark across exec, so a child spawned by a large parent (this bench, after the
 * sessions benchmark) would report the parent's size.
 */
const RSS_REPORTER = `
import { readFileSync, writeFileSync } from 'node:fs';
process.on('exit', () => {
  let kb = process.resourceUsage().maxRSS;
  try {
    const match = /^VmHWM:\\s+(\\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) kb = Number(match[1]);
  } catch {}
  writeFileSync(process.env.LICH_RSS_FILE, String(kb));
});
`;

interface Sandbox {
  dir: string;
  bare: string;
  rss_reporter: string;
  env: Record<string, string>;
}

function run_process(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
    });
  });
}

/** A task of `turns` model calls: `turns - 1` read_file calls, then the answer. */
function script(turns: number): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let turn = 1; turn < turns; turn++) {
    steps.push({
      tool_calls: [{ id: `call_${turn}`, name: 'read_file', arguments: { path: 'notes.txt' } }],
    });
  }
  steps.push({ text: 'The notes say hello.' });
  return steps;
}

async function make_sandbox(server: FakeServer): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), 'lich-bench-cli-'));
  await writeFile(join(dir, 'notes.txt'), 'hello from the notes\n');
  const bare = join(dir, 'bare.mjs');
  await writeFile(bare, BARE_SCRIPT);
  const rss_reporter = join(dir, 'rss.mjs');
  await writeFile(rss_reporter, RSS_REPORTER);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    NO_COLOR: '1',
    OLLAMA_HOST: '127.0.0.1:9',
    LICH_PROVIDER: 'openai_compat',
    LICH_MODEL: 'fake',
    LICH_BASE_URL: server.base_url,
    BARE_BASE_URL: server.base_url,
  };
  return { dir, bare, rss_reporter, env };
}

/**
 * `bin.cjs` runs the unbundled code, about twice as slow to start, when a package was rebuilt
 * after the bundle; in a tree where others rebuild packages that is often. Measure what
 * `pnpm build` ships instead: remake a stale bundle first (only for the default BIN).
 */
function ensure_fresh_bundle(): void {
  if (process.env.LICH_BENCH_BIN !== undefined) return;
  const cli_dir = fileURLToPath(new URL('../../apps/cli/', import.meta.url));
  const loader = createRequire(import.meta.url)(join(cli_dir, 'dist', 'bundle_loader.cjs')) as {
    read_manifest(folder: string): unknown;
    bundle_fresh(folder: string, manifest: unknown): boolean;
  };
  const folder = join(cli_dir, 'dist', 'bundle');
  const manifest = loader.read_manifest(folder);
  if (manifest !== null && loader.bundle_fresh(folder, manifest)) return;
  process.stderr.write('the CLI bundle is stale or missing: rebuilding it\n');
  execFileSync(process.execPath, [join(cli_dir, 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
}

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
      target: `ratio <= ${TARGET_RATIO}`,
      pass: startup.ratio <= TARGET_RATIO,
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
      target: `ratio <= ${TARGET_RATIO}`,
      pass: one_shot.ratio <= TARGET_RATIO,
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

    // Per-turn overhead: (lich - bare) time at 20, 110 and 200 turns.
    const sizes = [20, 110, 200];
    const excess = new Map<number, number>();
    for (const turns of sizes) {
      const timed = await alternate(
        TURN_ROUNDS,
        async () => {
          server.enqueue(...script(turns));
          await lich(['--max-turns', String(turns + 10), 'read notes.txt again and again']);
        },
        async () => {
          server.enqueue(...script(turns));
          await bare();
        },
      );
      excess.set(turns, timed.lich_ms - timed.baseline_ms);
    }
    const first = ((excess.get(110) ?? 0) - (excess.get(20) ?? 0)) / 90;
    const second = ((excess.get(200) ?? 0) - (excess.get(110) ?? 0)) / 90;
    const flat = second <= Math.max(first * 1.5, first + 0.5);
    rows.push({
      bench: 'cli',
      metric: 'overhead per turn, turns 20-110',
      lich: first,
      unit: 'ms',
      target: `<= ${TARGET_TURN_MS} ms`,
      pass: first <= TARGET_TURN_MS,
    });
    rows.push({
      bench: 'cli',
      metric: 'overhead per turn, turns 110-200',
      lich: second,
      baseline: first,
      baseline_name: 'turns 20-110',
      unit: 'ms',
      ratio: first > 0 ? second / first : undefined,
      target: `<= ${TARGET_TURN_MS} ms, flat`,
      pass: second <= TARGET_TURN_MS && flat,
    });
  } finally {
    await server.close();
    await rm(sandbox.dir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * The TUI as a person meets it: the built `lich` in a pseudo-terminal (util-linux `script`, set to
 * 100 × 30), against the testkit's fake OpenAI server.
 * - start-up: from spawning `lich` to the first frame with the prompt ready, against spawning
 *   `node -e 0` to its exit, the same way, alternating (the first runs warm the code cache);
 * - streaming: the CPU the `lich` process uses while a 5,000-token answer streams at 500 tokens a
 *   second (markdown: paragraphs, lists, code), as a share of one core over the stream's time;
 * - keystrokes: from writing one character to the terminal to the frame that shows it, at rest
 *   and while an answer streams (p50 and p99 of each); and the TUI's own share of it, measured in
 *   this process (`tui_in_process.ts`), which a loaded machine's scheduling does not blur;
 * - `lich "task"` start-up is unchanged by the TUI: the CLI bundle's code (what every command
 *   loads) holds no ink, react or yoga (`bench:cli` times it against a bare script).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { median } from './stats.js';
import type { BenchRow } from './types.js';

const CLI_DIR = fileURLToPath(new URL('../../apps/cli/', import.meta.url));
const BIN = process.env.LICH_BENCH_BIN ?? join(CLI_DIR, 'dist', 'bin.cjs');
const COLUMNS = 100;
const ROWS = 30;
const STARTUP_ROUNDS = 15;
const KEYSTROKES = 150;
const STREAM_TOKENS = 5000;
const TOKENS_PER_SECOND = 500;
/** Characters per token, as the fake server's usage estimate counts them. */
const CHARS_PER_TOKEN = 4;
const CHUNK_CHARS = 16;
const TARGET_STARTUP_RATIO = 3;
const TARGET_CPU_PERCENT = 25;
const TARGET_KEYSTROKE_P99_MS = 16;
const CLOCK_TICKS = 100;

/** A program running in a pseudo-terminal, with what it printed so far. */
class Pty {
  readonly child: ChildProcess;
  output = '';
  private waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(command: string, options: { cwd: string; env: Record<string, string> }) {
    const line = `stty cols ${COLUMNS} rows ${ROWS}; exec ${command}`;
    this.child = spawn('script', ['-qfec', line, '/dev/null'], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    this.child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.output += text;
      for (const waiter of [...this.waiters]) waiter();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /** Resolves once the output since `from` (an offset into it) satisfies `check`. */
  wait_for(check: (text: string) => boolean, what: string, from = 0, timeout_ms = 30_000) {
    return new Promise<void>((resolve, reject) => {
      const test = () => {
        if (!check(this.output.slice(from))) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`never saw ${what}; last output: ${JSON.stringify(this.output.slice(-400))}`),
        );
      }, timeout_ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(test);
      };
      this.waiters.add(test);
      test();
    });
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  /** The pid of the program (`script`'s child, which `exec` made it). */
  program_pid(): number {
    const children = readFileSync(
      `/proc/${this.child.pid}/task/${this.child.pid}/children`,
      'utf8',
    ).trim();
    const pid = Number(children.split(/\s+/)[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error('the program under script has no pid');
    return pid;
  }

  /** Stops the program and `script` (the whole process group) and waits for `script`'s exit. */
  async kill(): Promise<void> {
    try {
      process.kill(-this.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await this.exited;
  }
}

/** CPU time (user + system) a process has used, in ms. */
function cpu_ms(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields from state (3rd of the line): utime is the 14th field of the line, stime the 15th
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

/** A markdown answer of about `tokens` tokens: paragraphs, a list and a code block, repeated. */
function long_answer(tokens: number): string {
  const section = [
    'The terminal draws this answer as it arrives, paragraph after paragraph, and each finished',
    'paragraph moves into the scrollback while only the tail is drawn again.\n\n',
    '- a list item with `inline code` and **bold** words\n- another item, a little longer than',
    'the first one\n\n```ts\nconst total = items.reduce((sum, item) => sum + item.size, 0);\n',
    'console.log(`total: ${total}`);\n```\n\n',
  ].join(' ');
  let text = '';
  while (text.length < tokens * CHARS_PER_TOKEN) text += section;
  return `${text.slice(0, tokens * CHARS_PER_TOKEN - 12)}\n\nSTREAM-END.`;
}

/** Refuses to measure a stale bundle (`lich` would then run unbundled code): remakes it. */
function ensure_fresh_bundles(): void {
  if (process.env.LICH_BENCH_BIN !== undefined) return;
  execFileSync(process.execPath, [join(CLI_DIR, 'scripts', 'bundle.mjs'), '--if-stale'], {
    stdio: 'inherit',
  });
}

interface Setup {
  dir: string;
  env: Record<string, string>;
  server: FakeServer;
}

async function setup(): Promise<Setup> {
  const dir = await mkdtemp(join(tmpdir(), 'lich-bench-tui-'));
  await writeFile(join(dir, 'notes.txt'), 'hello\n');
  const server = await start_openai_server();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, 'xdg'),
    TERM: 'xterm-256color',
    OLLAMA_HOST: '127.0.0.1:9',
    LICH_PROVIDER: 'openai_compat',
    LICH_MODEL: 'fake',
    LICH_BASE_URL: server.base_url,
    LICH_CODE_CACHE_DIR: join(dir, 'code-cache'),
  };
  return { dir, env, server };
}

const lich_command = () => `${process.execPath} ${BIN}`;
/** The placeholder of an empty prompt: on screen in the first frame. */
const PROMPT = 'ask anything';

/** Spawn to first frame with the prompt, once. */
async function first_frame(s: Setup): Promise<number> {
  const started = performance.now();
  const pty = new Pty(lich_command(), { cwd: s.dir, env: s.env });
  try {
    await pty.wait_for((text) => text.includes(PROMPT), 'the prompt');
    return performance.now() - started;
  } finally {
    await pty.kill();
  }
}

/** Spawn of `node -e 0` to its exit, in the same pseudo-terminal set-up. */
async function node_baseline(s: Setup): Promise<number> {
  const started = performance.now();
  const pty = new Pty(`${process.execPath} -e 0`, { cwd: s.dir, env: s.env });
  await pty.exited;
  return performance.now() - started;
}

/** Opens `lich` and waits for its session (the status line names the model). */
async function open_lich(s: Setup): Promise<Pty> {
  const pty = new Pty(lich_command(), { cwd: s.dir, env: s.env });
  await pty.wait_for((text) => text.includes(PROMPT) && text.includes('fake ·'), 'the session');
  return pty;
}

/**
 * Types `count` characters one at a time, about every 30 ms as a fast typist does, and returns
 * the time from each write to the frame showing it.
 */
async function keystrokes(pty: Pty, count: number, stop?: () => boolean): Promise<number[]> {
  const times: number[] = [];
  let typed = '';
  for (let index = 0; index < count && !(stop?.() ?? false); index++) {
    const char = String.fromCharCode(97 + (index % 26));
    typed += char;
    const from = pty.output.length;
    const started = performance.now();
    pty.write(char);
    const shown = typed.slice(-20);
    await pty.wait_for((text) => text.includes(shown), `the echo of '${char}'`, from);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  // leave the prompt empty again
  pty.write('\u0015');
  return times;
}

export async function run(): Promise<BenchRow[]> {
  ensure_fresh_bundles();
  const s = await setup();
  const rows: BenchRow[] = [];
  try {
    // warm: the code cache is written by the first run
    await first_frame(s);
    await first_frame(s);
    const lich_times: number[] = [];
    const node_times: number[] = [];
    for (let round = 0; round < STARTUP_ROUNDS; round++) {
      if (round % 2 === 0) {
        node_times.push(await node_baseline(s));
        lich_times.push(await first_frame(s));
      } else {
        lich_times.push(await first_frame(s));
        node_times.push(await node_baseline(s));
      }
    }
    const lich_ms = median(lich_times);
    const node_ms = median(node_times);
    rows.push({
      bench: 'tui',
      metric: 'lich → first frame, prompt ready',
      lich: lich_ms,
      baseline: node_ms,
      baseline_name: 'node -e 0',
      unit: 'ms',
      ratio: lich_ms / node_ms,
      target: `ratio <= ${TARGET_STARTUP_RATIO}`,
      pass: lich_ms / node_ms <= TARGET_STARTUP_RATIO,
    });

    // keystrokes at rest
    const pty = await open_lich(s);
    try {
      const rest = await keystrokes(pty, KEYSTROKES);
      rows.push(keystroke_row('keystroke → echo at rest', rest));

      // streaming: 5,000 tokens at 500 tokens/s, CPU of the lich process over the stream
      const chunks_per_second = TOKENS_PER_SECOND / (CHUNK_CHARS / CHARS_PER_TOKEN);
      s.server.enqueue({
        text: long_answer(STREAM_TOKENS),
        chunk_chars: CHUNK_CHARS,
        chunk_delay_ms: 1000 / chunks_per_second,
      });
      const pid = pty.program_pid();
      const from = pty.output.length;
      pty.write('stream a long answer\r');
      await pty.wait_for((text) => text.includes('The terminal draws'), 'the stream', from);
      const cpu_start = cpu_ms(pid);
      const wall_start = performance.now();
      let ended = false;
      const end = pty
        .wait_for((text) => text.includes('STREAM-END.'), 'the end of the stream', from, 120_000)
        .then(() => {
          ended = true;
        });
      // type while it streams (the prompt queues a follow-up; it is cleared after)
      const streaming = await keystrokes(pty, KEYSTROKES, () => ended);
      await end;
      const wall = performance.now() - wall_start;
      const cpu = cpu_ms(pid) - cpu_start;
      const percent = (cpu / wall) * 100;
      const rate = STREAM_TOKENS / (wall / 1000);
      rows.push({
        bench: 'tui',
        metric: `CPU streaming ${STREAM_TOKENS} tokens (${rate.toFixed(0)} tok/s), typing`,
        lich: percent,
        unit: '% core',
        target: `<= ${TARGET_CPU_PERCENT}%`,
        pass: percent <= TARGET_CPU_PERCENT,
      });
      rows.push(keystroke_row('keystroke → echo while streaming', streaming));
    } finally {
      await pty.kill();
    }
    // the build of react that `lich` runs (its bundle is made with NODE_ENV=production)
    process.env.NODE_ENV ??= 'production';
    const { in_process_keystrokes } = await import('./tui_in_process.js');
    const own = await in_process_keystrokes({
      keystrokes: KEYSTROKES,
      answer: long_answer(STREAM_TOKENS),
      chunk_chars: CHUNK_CHARS,
      chunk_ms: (1000 * CHUNK_CHARS) / CHARS_PER_TOKEN / TOKENS_PER_SECOND,
    });
    rows.push(keystroke_row('keystroke → frame in the TUI at rest', own.rest));
    rows.push(keystroke_row('keystroke → frame in the TUI while streaming', own.streaming));
    rows.push(cli_bundle_row());
  } finally {
    await s.server.close();
    await rm(s.dir, { recursive: true, force: true });
  }
  return rows;
}

function keystroke_row(metric: string, times: readonly number[]): BenchRow {
  const p99 = percentile(times, 0.99);
  return {
    bench: 'tui',
    metric: `${metric} (p50 ${median(times).toFixed(1)} ms, n=${times.length})`,
    lich: p99,
    unit: 'ms p99',
    target: `p99 <= ${TARGET_KEYSTROKE_P99_MS} ms`,
    pass: p99 <= TARGET_KEYSTROKE_P99_MS,
  };
}

/** `lich "task"` loads the CLI bundle only: count the TUI modules in it (none may be). */
function cli_bundle_row(): BenchRow {
  const folder = join(CLI_DIR, 'dist', 'bundle');
  const tui_code = /node_modules\/\.pnpm\/(ink|react|react-reconciler|yoga-layout)@/g;
  let found = 0;
  let bytes = 0;
  for (const name of readdirSync(folder).filter((file) => file.endsWith('.cjs'))) {
    const code = readFileSync(join(folder, name), 'utf8');
    bytes += code.length;
    found += code.match(tui_code)?.length ?? 0;
  }
  return {
    bench: 'tui',
    metric: `ink/react/yoga modules in the CLI bundle (${(bytes / 1024).toFixed(0)} KiB)`,
    lich: found,
    unit: 'modules',
    target: '0 (bench:cli times lich "task")',
    pass: found === 0,
  };
}

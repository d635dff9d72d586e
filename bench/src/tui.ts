/**
 * The TUI as a person meets it: the built `lich` in a pseudo-terminal (util-linux `script`, set to
 * 100 × 30), against the testkit's fake OpenAI server. Cases (`pnpm bench:tui <case>…` runs some):
 * - `startup`: from spawning `lich` to the first frame with the prompt ready, against spawning
 *   `node -e 0` to its exit, the same way, alternating (a first run left open until it wrote
 *   its code cache makes these the starts a person has from the second time on);
 * - `keys`: from writing one character to the terminal to the output that shows it, p50 and p99,
 *   beside the same for a program that only echoes keys (the floor: the terminal, the scheduler
 *   and this bench), typed alternately with `lich` so both see the same load;
 * - `streaming`: the CPU the `lich` process uses while a 5,000-token answer streams at 500 tokens a
 *   second (markdown: paragraphs, lists, code), as a share of one core over the stream's time,
 *   and keystrokes typed meanwhile (the floor program then also redraws lines 30 times a second);
 * - `in-process`: the TUI's own keystroke-to-frame time, measured in this process
 *   (`tui_in_process.ts`), which a loaded machine's scheduling blurs less;
 * - `bundle`: `lich "task"` start-up is unchanged by the TUI: the CLI bundle's code (what every
 *   command loads) holds no ink, react or yoga (`bench:cli` times it against a bare script).
 * LICH_BENCH_TUI_PROFILE=<dir> runs `lich` with `--cpu-prof` into that folder.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { Pty, Typist } from './pty.js';
import { median } from './stats.js';
import type { BenchRow } from './types.js';

const CLI_DIR = fileURLToPath(new URL('../../apps/cli/', import.meta.url));
const BIN = process.env.LICH_BENCH_BIN ?? join(CLI_DIR, 'dist', 'bin.cjs');
const COLUMNS = 100;
const ROWS = 30;
/** The pseudo-terminal's size. */
const SCREEN = { columns: COLUMNS, rows: ROWS };
const STARTUP_ROUNDS = 15;
/** Keystrokes per case: a p99 of 300 is its 4th-slowest, less at the mercy of one stall than of 150. */
const KEYSTROKES = 300;
const STREAM_TOKENS = 5000;
const TOKENS_PER_SECOND = 500;
/** Characters per token, as the fake server's usage estimate counts them. */
const CHARS_PER_TOKEN = 4;
const CHUNK_CHARS = 16;
const TARGET_STARTUP_RATIO = 3;
const TARGET_CPU_PERCENT = 25;
const TARGET_KEYSTROKE_P99_MS = 16;
const CLOCK_TICKS = 100;

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
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a code sample, not a template
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
  await writeFile(join(dir, 'echo_floor.cjs'), ECHO_PROGRAM);
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

const lich_command = () => {
  const profile = process.env.LICH_BENCH_TUI_PROFILE;
  const flags = profile === undefined ? '' : `--cpu-prof --cpu-prof-dir=${profile} `;
  return `${process.execPath} ${flags}${BIN}`;
};
/** The placeholder of an empty prompt: on screen in the first frame. */
const PROMPT = 'ask anything';

/**
 * The floor of the keystroke figures: a program that only echoes each key on a prompt line (in
 * raw mode, as the TUI reads keys), run in the same pseudo-terminal set-up. Whatever it takes is
 * the terminal's, the scheduler's and this bench's, not the TUI's. With FRAME_BYTES it also
 * redraws that many bytes of lines above the prompt 30 times a second, the traffic of a screen
 * that streams an answer.
 */
const ECHO_PROGRAM = `
const frame_bytes = Number(process.env.FRAME_BYTES || 0);
let text = '';
const line = () => '\\r\\x1b[2K> ' + text.slice(-80);
process.stdin.setRawMode(true);
process.stdin.setEncoding('utf8');
process.stdout.write('echo ready\\r\\n' + line());
process.stdin.on('data', (data) => {
  for (const char of data) text = char === '\\x15' ? '' : text + char;
  process.stdout.write(line());
});
if (frame_bytes > 0) {
  const rows = Math.max(1, Math.round(frame_bytes / 100));
  let n = 0;
  setInterval(() => {
    n += 1;
    const body = Array.from({ length: rows }, (_, i) => ('frame ' + n + ' row ' + i + ' ').padEnd(96, '.'));
    process.stdout.write('\\x1b[2K\\x1b[1A'.repeat(rows) + '\\r' + body.join('\\r\\n') + '\\r\\n' + line());
  }, 33);
}
`;
const FLOOR_FRAME_BYTES = 2400;

/** Spawn to first frame with the prompt, once. */
async function first_frame(s: Setup): Promise<number> {
  const started = performance.now();
  const pty = new Pty(lich_command(), { cwd: s.dir, env: s.env, ...SCREEN });
  try {
    await pty.wait_for([PROMPT], 'the prompt');
    return performance.now() - started;
  } finally {
    await pty.kill();
  }
}

/** Spawn of `node -e 0` to its exit, in the same pseudo-terminal set-up. */
async function node_baseline(s: Setup): Promise<number> {
  const started = performance.now();
  const pty = new Pty(`${process.execPath} -e 0`, { cwd: s.dir, env: s.env, ...SCREEN });
  await pty.exited;
  return performance.now() - started;
}

/** Opens `lich` and waits for its session (the status line names the model). */
async function open_lich(s: Setup): Promise<Pty> {
  const pty = new Pty(lich_command(), { cwd: s.dir, env: s.env, ...SCREEN });
  await pty.wait_for([PROMPT, 'fake ·'], 'the session');
  return pty;
}

/** Starts the echo program (the floor), with background frames when `frame_bytes` > 0. */
async function open_echo(s: Setup, frame_bytes: number): Promise<Pty> {
  const pty = new Pty(`${process.execPath} ${join(s.dir, 'echo_floor.cjs')}`, {
    cwd: s.dir,
    env: { ...s.env, FRAME_BYTES: String(frame_bytes) },
    ...SCREEN,
  });
  await pty.wait_for(['echo ready'], 'the echo program');
  return pty;
}

/** Leaves `lich` with /quit (a CPU profile, when asked for, is written then); kills it if stuck. */
async function quit_lich(pty: Pty): Promise<void> {
  pty.write('\u0015/quit\r');
  const timer = setTimeout(() => void pty.kill(), 10_000);
  await pty.exited;
  clearTimeout(timer);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Types `count` characters into `lich`, one every ~30 ms after its echo as a fast typist does,
 * each followed at once by one into the echo program (the floor), so both see the same load.
 * Stops early when `stop` says so. Empties both prompts after.
 */
async function keystrokes(
  lich: Typist,
  floor: Typist,
  count: number,
  stop?: () => boolean,
): Promise<void> {
  for (let index = 0; index < count && !(stop?.() ?? false); index++) {
    await lich.key(index);
    const floor_time = await floor.key(index);
    await pause(Math.max(0, 30 - floor_time));
  }
  lich.clear();
  floor.clear();
}

/** The cases, in the order they run; `pnpm bench:tui <case>…` runs only those named. */
export const cases = ['startup', 'keys', 'streaming', 'in-process', 'bundle'] as const;

export async function run(only: readonly string[] = []): Promise<BenchRow[]> {
  const wanted = (name: (typeof cases)[number]) => only.length === 0 || only.includes(name);
  const rows: BenchRow[] = [];
  if (wanted('startup') || wanted('keys') || wanted('streaming')) {
    ensure_fresh_bundles();
    const s = await setup();
    try {
      if (wanted('startup')) rows.push(await startup(s));
      if (wanted('keys')) rows.push(...(await keys_at_rest(s)));
      if (wanted('streaming')) rows.push(...(await streaming(s)));
    } finally {
      await s.server.close();
      await rm(s.dir, { recursive: true, force: true });
    }
  }
  if (wanted('in-process')) rows.push(...(await in_process()));
  if (wanted('bundle')) rows.push(cli_bundle_row());
  return rows;
}

/** True once a run has written the TUI bundle's code cache under the bench's home. */
function tui_cache_written(s: Setup): boolean {
  const root = s.env.LICH_CODE_CACHE_DIR as string;
  try {
    return readdirSync(root).some((key) => {
      try {
        return readdirSync(join(root, key)).includes('tui.cjs.cache');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * The start a person has from the second time on: one run is left open until it has written its
 * code cache (a second after its first frame), as anyone's first session does.
 */
async function warm_code_cache(s: Setup): Promise<void> {
  const pty = new Pty(lich_command(), { cwd: s.dir, env: s.env, ...SCREEN });
  try {
    await pty.wait_for([PROMPT], 'the prompt');
    const deadline = performance.now() + 10_000;
    while (!tui_cache_written(s) && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!tui_cache_written(s)) console.error('tui: no code cache was written; timing cold starts');
  } finally {
    await pty.kill();
  }
}

async function startup(s: Setup): Promise<BenchRow> {
  await warm_code_cache(s);
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
  return {
    bench: 'tui',
    metric: 'lich → first frame, prompt ready',
    lich: lich_ms,
    baseline: node_ms,
    baseline_name: 'node -e 0',
    unit: 'ms',
    ratio: lich_ms / node_ms,
    target: `ratio <= ${TARGET_STARTUP_RATIO}`,
    pass: lich_ms / node_ms <= TARGET_STARTUP_RATIO,
  };
}

async function keys_at_rest(s: Setup): Promise<BenchRow[]> {
  const pty = await open_lich(s);
  const echo = await open_echo(s, 0);
  try {
    const lich = new Typist(pty);
    const floor = new Typist(echo);
    await keystrokes(lich, floor, KEYSTROKES);
    return [keystroke_row('keystroke → echo at rest', lich.times, floor.times)];
  } finally {
    await echo.kill();
    await quit_lich(pty);
  }
}

/** 5,000 tokens at 500 tokens/s: the CPU of the lich process over the stream, typing as it goes. */
async function streaming(s: Setup): Promise<BenchRow[]> {
  const pty = await open_lich(s);
  const echo = await open_echo(s, FLOOR_FRAME_BYTES);
  try {
    const chunks_per_second = TOKENS_PER_SECOND / (CHUNK_CHARS / CHARS_PER_TOKEN);
    s.server.enqueue({
      text: long_answer(STREAM_TOKENS),
      chunk_chars: CHUNK_CHARS,
      chunk_delay_ms: 1000 / chunks_per_second,
    });
    const pid = pty.program_pid();
    const started = pty.wait_for(['The terminal draws'], 'the stream');
    pty.write('stream a long answer\r');
    await started;
    const cpu_start = cpu_ms(pid);
    const wall_start = performance.now();
    const received_start = pty.received;
    let ended = false;
    const end = pty.wait_for(['STREAM-END.'], 'the end of the stream', 120_000).then(() => {
      ended = true;
    });
    // type while it streams (the prompt queues a follow-up; it is cleared after)
    const lich = new Typist(pty);
    const floor = new Typist(echo);
    await keystrokes(lich, floor, KEYSTROKES, () => ended);
    await end;
    const wall = performance.now() - wall_start;
    const cpu = cpu_ms(pid) - cpu_start;
    const percent = (cpu / wall) * 100;
    const rate = STREAM_TOKENS / (wall / 1000);
    const kib_per_second = (pty.received - received_start) / 1024 / (wall / 1000);
    return [
      {
        bench: 'tui',
        metric: `CPU streaming ${STREAM_TOKENS} tokens (${rate.toFixed(0)} tok/s, ${kib_per_second.toFixed(0)} KiB/s drawn), typing`,
        lich: percent,
        unit: '% core',
        target: `<= ${TARGET_CPU_PERCENT}%`,
        pass: percent <= TARGET_CPU_PERCENT,
      },
      keystroke_row('keystroke → echo while streaming', lich.times, floor.times),
    ];
  } finally {
    await echo.kill();
    await quit_lich(pty);
  }
}

async function in_process(): Promise<BenchRow[]> {
  // the build of react that `lich` runs (its bundle is made with NODE_ENV=production)
  process.env.NODE_ENV ??= 'production';
  const { in_process_keystrokes } = await import('./tui_in_process.js');
  const own = await in_process_keystrokes({
    keystrokes: KEYSTROKES,
    answer: long_answer(STREAM_TOKENS),
    chunk_chars: CHUNK_CHARS,
    chunk_ms: (1000 * CHUNK_CHARS) / CHARS_PER_TOKEN / TOKENS_PER_SECOND,
  });
  const writes = `${own.writes_per_key.toFixed(1)} writes/key`;
  const rate = `${own.writes_per_second_streaming.toFixed(0)} writes/s`;
  return [
    keystroke_row(`keystroke → frame in the TUI at rest, ${writes}`, own.rest),
    keystroke_row(`keystroke → frame in the TUI while streaming, ${rate}`, own.streaming),
  ];
}

/**
 * A keystroke row: the p99 against the target. With `floor` (the echo program's times, typed
 * alternately with these), its p99 is the baseline: what the terminal and the machine cost alone.
 */
function keystroke_row(
  metric: string,
  times: readonly number[],
  floor?: readonly number[],
): BenchRow {
  const p99 = percentile(times, 0.99);
  const floor_p99 = floor === undefined ? undefined : percentile(floor, 0.99);
  const p50s =
    floor === undefined
      ? `p50 ${median(times).toFixed(1)} ms`
      : `p50 ${median(times).toFixed(1)} ms, echo program p50 ${median(floor).toFixed(1)} ms`;
  return {
    bench: 'tui',
    metric: `${metric} (${p50s}, n=${times.length})`,
    lich: p99,
    ...(floor_p99 === undefined
      ? {}
      : { baseline: floor_p99, baseline_name: 'echo program p99', ratio: p99 / floor_p99 }),
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

import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach } from 'vitest';
import { built_lich_bin } from './build_cli.js';

/**
 * The built `lich`: the package's `bin`; `LICH_TEST_BIN` runs the tests against another build
 * (an older one, to see a test fail before its fix).
 */
export const BIN = process.env.LICH_TEST_BIN ?? built_lich_bin();

/** What a `lich` process did. */
export interface LichResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A temporary home, config home and work dir for one test. */
export interface Sandbox {
  temp: TempDir;
  home: string;
  xdg: string;
  work_dir: string;
  /** An environment with nothing from the machine but PATH: no keys, no config. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/** Creates a sandbox; `files` are written into the work dir. */
export async function make_sandbox(files: Record<string, string> = {}): Promise<Sandbox> {
  const temp = await make_temp_dir({ prefix: 'lich-cli-' });
  const home = join(temp.path, 'home');
  const xdg = join(temp.path, 'xdg');
  const work_dir = join(temp.path, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(xdg, { recursive: true });
  await mkdir(work_dir, { recursive: true });
  for (const [relative, content] of Object.entries(files)) {
    await mkdir(dirname(join(work_dir, relative)), { recursive: true });
    await writeFile(join(work_dir, relative), content);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: xdg,
    NO_COLOR: '1',
    // nothing listens there: the Ollama probe finds nothing, at once
    OLLAMA_HOST: '127.0.0.1:9',
  };
  return { temp, home, xdg, work_dir, env, cleanup: () => temp.cleanup() };
}

/**
 * Registers a fresh sandbox (with `files` in its work dir) and fake OpenAI server around each test
 * of the calling file, handing them to `take` before the test and closing both after it.
 */
export function sandbox_and_server_each(
  take: (made: { sandbox: Sandbox; server: FakeServer }) => void,
  files: Record<string, string> = {},
): void {
  let made: { sandbox: Sandbox; server: FakeServer } | undefined;
  beforeEach(async () => {
    made = { sandbox: await make_sandbox(files), server: await start_openai_server() };
    take(made);
  });
  afterEach(async () => {
    await made?.server.close();
    await made?.sandbox.cleanup();
    made = undefined;
  });
}

/** Options of `run_lich`. */
export interface RunOptions {
  env: Record<string, string>;
  cwd: string;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
  /** Give stdin as a pipe that is never written to nor closed (as many process runners do). */
  open_stdin?: boolean;
  /** Node options before the script, e.g. `--import`. */
  node_args?: string[];
  /** Run this script instead of `BIN`. */
  script?: string;
  timeout_ms?: number;
  /** Called with the child once it started (to send signals). */
  on_spawn?: (child: import('node:child_process').ChildProcess) => void;
}

/** Runs the built `lich` with `args`; resolves when it exits (killed after `timeout_ms`). */
export function run_lich(args: readonly string[], options: RunOptions): Promise<LichResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(options.node_args ?? []), options.script ?? BIN, ...args],
      {
        cwd: options.cwd,
        env: options.env,
        stdio: [
          options.input === undefined && options.open_stdin !== true ? 'ignore' : 'pipe',
          'pipe',
          'pipe',
        ],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout_ms ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      resolve({ code, signal, stdout, stderr });
    });
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
    options.on_spawn?.(child);
  });
}

/** The session files of a work dir, oldest first. */
export async function session_files(work_dir: string): Promise<string[]> {
  const folder = join(work_dir, '.lich', 'sessions');
  const names = (await readdir(folder).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.jsonl'))
    .sort();
  return names.map((name) => join(folder, name));
}

/** The records of a session file. */
export async function read_records(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The environment that points `lich` at one fake OpenAI-compatible server. */
export function openai_env(sandbox: Sandbox, base_url: string): Record<string, string> {
  return {
    ...sandbox.env,
    LICH_PROVIDER: 'openai_compat',
    LICH_MODEL: 'fake-model',
    LICH_BASE_URL: base_url,
  };
}

/** The chat request body a fake server received, by arrival index. Throws when it did not. */
export function request_body<T = { messages: { role: string; content: string }[] }>(
  server: { requests: readonly { body: unknown }[] },
  index: number,
): T {
  const request = server.requests[index];
  if (request === undefined) throw new Error(`the fake server received no request #${index}`);
  return request.body as T;
}

import type { spawn } from 'node:child_process';
import { type ActiveRun, track, untrack } from './active_runs.js';
import { child_process_module } from './child_process_module.js';
import { HeadTailBuffer } from './output_buffer.js';
import {
  new_marker_value,
  RUN_MARKER_NAME,
  type RunMarker,
  start_ticks,
} from './process_marker.js';
import { kill_process_tree } from './process_tree.js';

/** How long the pipes may stay open after the process tree is gone. */
const CLOSE_WAIT_MS = 1_000;

/** What to run and how long it may take. */
export interface RunProcessOptions {
  /** The program; looked up on PATH. */
  file: string;
  args: readonly string[];
  cwd: string;
  /** The child's environment; the parent's when absent. */
  env?: NodeJS.ProcessEnv;
  /** Kills the tree after this long. No limit when absent. */
  timeout_ms?: number;
  /** Kills the tree when it fires. */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL; `KILL_GRACE_MS` by default. */
  grace_ms?: number;
  /** Output kept from the start (bytes); 16 KiB by default. */
  head_bytes?: number;
  /** Output kept from the end (bytes); 16 KiB by default. */
  tail_bytes?: number;
  /**
   * Bytes the program reads on file descriptors 3, 4, … (one pipe each, closed after the bytes:
   * bubblewrap's `--seccomp 3`).
   */
  inputs?: readonly Buffer[];
  /**
   * A start gate (bubblewrap's `--info-fd` and `--block-fd`): two pipes on the descriptors after
   * `inputs` (`3 + inputs.length` for the program to write a JSON object to, the next one for it
   * to wait on). `on_info` gets the parsed object (`{ "child-pid": N }`), then the program is let
   * go by a byte on the second pipe, both pipes closed.
   */
  gate?: { on_info(info: unknown): void };
  /**
   * Opens Node's IPC channel on the file descriptor after `inputs` and the gate (the program
   * must be Node): each message, and the handle sent with it, goes here.
   */
  on_message?: (message: unknown, handle: unknown) => void;
  /**
   * Called every `interval_ms` while the program runs, with its pid: a reason it returns ends the
   * tree, and the outcome carries it as `stopped`.
   */
  watch?: { interval_ms: number; check(pid: number): string | undefined };
}

/** How a process ended. */
export interface ProcessOutcome {
  /** The exit code, or `null` when a signal ended it or it never started. */
  exit_code: number | null;
  /** The signal that ended it, if one did. */
  exit_signal: NodeJS.Signals | null;
  /** stdout and stderr in arrival order, head and tail kept, the cut marked. */
  output: string;
  truncated: boolean;
  output_bytes: number;
  timed_out: boolean;
  aborted: boolean;
  duration_ms: number;
  /** Why the process could not be started (missing program, missing cwd…). */
  spawn_error?: string;
  /** Why `watch` ended the tree (a process limit run into). */
  stopped?: string;
}

/**
 * Runs a program in a process group of its own, stdin closed, and collects its output.
 *
 * Contract:
 * - never throws or rejects; a failed start is `spawn_error`;
 * - on timeout or abort the whole tree is ended (`kill_process_tree`), grandchildren included,
 *   and the outcome says `timed_out` / `aborted`; an already aborted signal starts nothing;
 * - when the program exits on its own, what it left running is ended too: its group (background
 *   jobs) and, on Linux, every process carrying the run's marker in its environment (daemons that
 *   left the group with `setsid`), so nothing outlives the call and an open pipe cannot hold the
 *   call forever;
 * - if Lich itself exits while the program runs, the program's group and marked processes are
 *   killed on the way out (a SIGKILL of Lich leaves them: only the sandbox's `--die-with-parent`
 *   covers that);
 * - memory use is bounded by `head_bytes + tail_bytes` whatever the program prints;
 * - `inputs` are written to pipes on file descriptors 3, 4, … and closed; `gate` opens two pipes
 *   after them and lets the program go once `on_info` has run; `on_message` opens Node's IPC
 *   channel after those; `watch.check` runs every `watch.interval_ms` while the program
 *   runs, and a reason it returns ends the tree like a timeout, reported as `stopped`.
 */
export function run_process(options: RunProcessOptions): Promise<ProcessOutcome> {
  const started = Date.now();
  const buffer = new HeadTailBuffer({
    head_bytes: options.head_bytes ?? 16_384,
    tail_bytes: options.tail_bytes ?? 16_384,
  });
  const outcome = (fields: Partial<ProcessOutcome>): ProcessOutcome => ({
    exit_code: null,
    exit_signal: null,
    output: buffer.text(),
    truncated: buffer.truncated,
    output_bytes: buffer.total_bytes,
    timed_out: false,
    aborted: false,
    duration_ms: Date.now() - started,
    ...fields,
  });
  if (options.signal?.aborted) return Promise.resolve(outcome({ aborted: true }));

  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    const marker_value = new_marker_value();
    const inputs = options.inputs ?? [];
    const stdio: ('ignore' | 'pipe' | 'ipc')[] = ['ignore', 'pipe', 'pipe'];
    for (let index = 0; index < inputs.length; index++) stdio.push('pipe');
    if (options.gate !== undefined) stdio.push('pipe', 'pipe');
    if (options.on_message !== undefined) stdio.push('ipc');
    try {
      child = child_process_module().spawn(options.file, [...options.args], {
        cwd: options.cwd,
        env: { ...(options.env ?? process.env), [RUN_MARKER_NAME]: marker_value },
        detached: true,
        stdio,
      });
    } catch (error) {
      resolve(outcome({ spawn_error: error instanceof Error ? error.message : String(error) }));
      return;
    }
    const pid = child.pid;
    const since = pid === undefined ? undefined : start_ticks(pid);
    const marker: RunMarker | undefined =
      since === undefined ? undefined : { value: marker_value, since };
    const active: ActiveRun | undefined = pid === undefined ? undefined : { pid, marker };
    if (active) track(active);
    let timed_out = false;
    let aborted = false;
    let exit_code: number | null = null;
    let exit_signal: NodeJS.Signals | null = null;
    let killing: Promise<unknown> | undefined;
    let closed = false;
    let settled = false;

    const on_data = (chunk: Buffer) => buffer.push(chunk);
    child.stdout?.on('data', on_data);
    child.stderr?.on('data', on_data);
    inputs.forEach((bytes, index) => {
      const pipe = child.stdio[3 + index] as import('node:stream').Duplex | null | undefined;
      if (!pipe) return;
      pipe.on('error', () => undefined);
      pipe.end(bytes, () => pipe.destroy());
    });
    if (options.gate !== undefined) {
      const gate = options.gate;
      const info = child.stdio[3 + inputs.length] as import('node:stream').Duplex | null;
      const block = child.stdio[4 + inputs.length] as import('node:stream').Duplex | null;
      let text = '';
      let opened = false;
      const open_gate = () => {
        if (opened) return;
        opened = true;
        info?.destroy();
        block?.end('1', () => block.destroy());
      };
      info?.on('error', () => undefined);
      block?.on('error', () => undefined);
      info?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          if (text.length < 4096) return; // not whole yet
        }
        try {
          gate.on_info(parsed);
        } finally {
          open_gate();
        }
      });
      // a program that exits or closes the pipe first is never left waiting on it
      info?.on('end', open_gate);
    }
    if (options.on_message !== undefined) {
      const on_message = options.on_message;
      child.on('message', (message, handle) => on_message(message, handle));
    }
    let stopped: string | undefined;
    const watch =
      options.watch === undefined || pid === undefined
        ? undefined
        : setInterval(() => {
            const reason = options.watch!.check(pid);
            if (reason === undefined || killing) return;
            stopped = reason;
            terminate();
          }, options.watch.interval_ms);

    const terminate = () => {
      if (killing || pid === undefined) return;
      killing = kill_process_tree(pid, { grace_ms: options.grace_ms, marker });
    };
    const timer =
      options.timeout_ms === undefined
        ? undefined
        : setTimeout(() => {
            timed_out = true;
            terminate();
          }, options.timeout_ms);
    const on_abort = () => {
      aborted = true;
      terminate();
    };
    options.signal?.addEventListener('abort', on_abort, { once: true });

    const finish = (fields: Partial<ProcessOutcome>) => {
      if (settled) return;
      settled = true;
      if (active) untrack(active);
      clearTimeout(timer);
      clearInterval(watch);
      options.signal?.removeEventListener('abort', on_abort);
      const ended = stopped === undefined ? {} : { stopped };
      resolve(outcome({ exit_code, exit_signal, timed_out, aborted, ...ended, ...fields }));
    };

    child.on('error', (error) => {
      // only a failed spawn lands here (no pid); a failed kill is handled in kill_process_tree
      if (pid === undefined) finish({ spawn_error: error.message });
    });
    const pipes_closed = new Promise<void>((resolve_closed) => {
      child.on('close', () => {
        closed = true;
        resolve_closed();
      });
    });
    child.on('exit', (code, signal) => {
      exit_code = code;
      exit_signal = signal;
      clearTimeout(timer);
      clearInterval(watch);
      // background jobs left in the group would keep the pipes open: end them as well
      if (!killing && pid !== undefined)
        killing = kill_process_tree(pid, { grace_ms: 200, marker });
      void (async () => {
        await killing;
        if (!closed) {
          let waited: NodeJS.Timeout | undefined;
          await Promise.race([
            pipes_closed,
            new Promise<void>((resolve_wait) => {
              waited = setTimeout(resolve_wait, CLOSE_WAIT_MS);
            }),
          ]);
          clearTimeout(waited);
        }
        if (!closed) {
          // a process that left the group still holds a pipe: stop listening to it
          child.stdout?.destroy();
          child.stderr?.destroy();
        }
        finish({});
      })();
    });
  });
}

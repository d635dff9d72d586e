import { stat } from 'node:fs/promises';
import type { Tool, ToolOutput, ToolRunContext } from '@lich/core';
import { z } from 'zod';
import { type Sandbox, type SandboxUsed, sandbox_of } from '../sandbox/sandbox.js';
import { socket_entry_path } from '../sandbox/unix_sockets.js';
import { child_env_of, env_passthrough_of, mentioned_names } from './env.js';
import { check_hardline } from './hardline.js';
import { type ProcessOutcome, run_process } from './run_process.js';

/** The time limit of one `terminal` call; a call may ask for less, never for more. */
export const TERMINAL_TIMEOUT_MS = 300_000;
/** Output kept when the context names no `max_output_chars`. */
const DEFAULT_OUTPUT_CHARS = 50_000;

const parameters = z
  .object({
    command: z.string().min(1).describe('The bash command line to run, in the work dir.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Time limit in milliseconds, at most ${TERMINAL_TIMEOUT_MS} (the default).`),
  })
  .strict();

/** Arguments of `terminal`. */
export type TerminalArgs = z.infer<typeof parameters>;

/** How to run one shell command for a tool. */
export interface ShellCommandOptions {
  work_dir: string;
  signal?: AbortSignal;
  timeout_ms?: number;
  /** Variables passed besides the base set (see `child_env_of`); the sandbox config's are added. */
  env_passthrough?: readonly string[];
  /** Variables set on top of the environment (`CI=true` for test runs). */
  extra_env?: Readonly<Record<string, string>>;
  /** Characters of output kept (head and tail); 50 000 by default. */
  max_output_chars?: number;
  /** Bytes of output kept from the start and the end, when a caller wants more than the budget. */
  keep_bytes?: { head: number; tail: number };
  /** The sandbox the command runs in; the default one (`auto`, no network) when absent. */
  sandbox?: Sandbox;
}

/** How a shell command ended, and how it was confined. */
export interface ShellCommandOutcome extends ProcessOutcome {
  /** The sandbox it ran under, or `none`. */
  sandbox: SandboxUsed;
  /** Lines the result adds after the output: the unsandboxed warning, how to allow a refusal. */
  notes: string[];
  /** Set when the sandbox settings refused to run it at all (`mode: 'required'`, no sandbox). */
  refused?: string;
}

function not_started(fields: Partial<ShellCommandOutcome>): ShellCommandOutcome {
  return {
    exit_code: null,
    exit_signal: null,
    output: '',
    truncated: false,
    output_bytes: 0,
    timed_out: false,
    aborted: false,
    duration_ms: 0,
    sandbox: 'none',
    notes: [],
    ...fields,
  };
}

/**
 * Runs `command` with `bash -c` in `work_dir`, under the sandbox (see `Sandbox`): its own
 * process group, stdin closed, stdout and stderr merged in the order written (one pipe for both),
 * an allow-listed environment (`child_env_of`), output kept within `max_output_chars` (head and
 * tail). A command that keeps running into the sandbox's process limit is stopped (`stopped`).
 *
 * Contract: never throws; does not check the hardline (callers do, before); a missing work dir
 * is a `spawn_error`; a command the sandbox settings refuse is `refused`, nothing run; on timeout
 * or abort the whole process tree is ended before it resolves, and whatever the command started
 * is ended when it exits.
 */
export async function run_shell_command(
  command: string,
  options: ShellCommandOptions,
): Promise<ShellCommandOutcome> {
  const budget = Math.max(1_000, options.max_output_chars ?? DEFAULT_OUTPUT_CHARS);
  try {
    if (!(await stat(options.work_dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    return not_started({
      spawn_error: `the work dir ${options.work_dir} does not exist or is not a folder`,
    });
  }
  const sandbox = options.sandbox ?? sandbox_of({});
  const allowed_sockets = sandbox.config.allow_unix_sockets.map((entry) =>
    socket_entry_path(entry, options.work_dir),
  );
  const { env, dropped } = child_env_of({
    passthrough: [...(options.env_passthrough ?? []), ...sandbox.config.env_passthrough],
    socket_allowed: (value) =>
      allowed_sockets.some((path) => value === path || value.endsWith(`//${path}`)),
  });
  // nothing can prompt: stdin is closed, so a prompt would only hang until the timeout
  env.GIT_TERMINAL_PROMPT = '0';
  Object.assign(env, options.extra_env);
  // one pipe for both streams keeps their order; on the command's own line so bash's error
  // messages keep their line numbers
  const prepared = await sandbox.prepare({
    script: `exec 2>&1; ${command}`,
    work_dir: options.work_dir,
    env,
  });
  if (!prepared.ok) return not_started({ refused: prepared.message });
  try {
    const outcome = await run_process({
      file: prepared.file,
      args: prepared.args,
      cwd: options.work_dir,
      env: prepared.env,
      signal: options.signal,
      timeout_ms: options.timeout_ms,
      head_bytes: options.keep_bytes?.head ?? Math.floor(budget * 0.4),
      tail_bytes: options.keep_bytes?.tail ?? Math.floor(budget * 0.6) - 200,
      ...(prepared.inputs === undefined ? {} : { inputs: prepared.inputs }),
      ...(prepared.on_message === undefined ? {} : { on_message: prepared.on_message }),
      ...(prepared.gate === undefined ? {} : { gate: prepared.gate }),
      ...(prepared.watch === undefined ? {} : { watch: prepared.watch }),
    });
    const notes = [...prepared.after(), ...sandbox.notes(prepared, outcome.output)];
    const wanted = mentioned_names(command, dropped);
    if (wanted.length > 0) {
      notes.push(
        `[sandbox] ${wanted.join(', ')} ${wanted.length === 1 ? 'is' : 'are'} not passed to commands: they get a base set of variables (PATH, HOME, LANG, TERM, toolchain settings…). To pass one, add its name to sandbox.env_passthrough in .lich/config.json.`,
      );
    }
    return { ...outcome, sandbox: prepared.sandbox, notes };
  } finally {
    await prepared.cleanup();
  }
}

/** The closing line of a command's report: how it ended. */
export function describe_ending(outcome: ProcessOutcome, timeout_ms?: number): string {
  if (outcome.spawn_error !== undefined) return `[could not start: ${outcome.spawn_error}]`;
  if (outcome.timed_out) {
    return `[timed out after ${timeout_ms ?? outcome.duration_ms} ms; the process tree was killed]`;
  }
  if (outcome.aborted) return '[aborted; the process tree was killed]';
  if (outcome.stopped !== undefined)
    return `[stopped: ${outcome.stopped}; the process tree was killed]`;
  if (outcome.exit_signal !== null) return `[killed by ${outcome.exit_signal}]`;
  return `[exit code ${outcome.exit_code}]`;
}

/** The executor's output limit carried in a tool context (`max_output_chars`), if any. */
export function output_limit_of(context: ToolRunContext): number | undefined {
  const value = context.max_output_chars;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * `terminal { command, timeout_ms? }`: runs a bash command line in the work dir.
 *
 * Contract: refuses the hardline (`check_hardline`) without running anything; otherwise runs the
 * command (see `run_shell_command`) for at most `TERMINAL_TIMEOUT_MS` or the lower `timeout_ms`,
 * and reports the merged output (clamped, head and tail kept) followed by a line saying how it
 * ended. `ok` is true only for exit code 0. Background jobs the command leaves running are ended
 * with it. The command runs under `context.sandbox` (see `Sandbox`); the result's `sandbox` says
 * how it was confined, and a line after the output says how to allow what the sandbox refused.
 * The command's environment is an allow-list: a base set (`BASE_ENV_NAMES`) plus
 * `sandbox.env_passthrough`; a `[sandbox]` line names a variable the command mentions but did
 * not get.
 */
export const terminal_tool: Tool<TerminalArgs> = {
  name: 'terminal',
  description:
    'Run a bash command line in the work dir and return its output (stdout and stderr merged) and ' +
    'exit code. No stdin: nothing interactive. Background jobs do not outlive the call. ' +
    `Time limit ${TERMINAL_TIMEOUT_MS / 1000} s unless timeout_ms asks for less.`,
  parameters,
  timeout_ms: TERMINAL_TIMEOUT_MS,
  async execute(args, context): Promise<ToolOutput> {
    const refused = check_hardline(args.command, { cwd: context.work_dir });
    if (refused) return { ok: false, output: refused.message, error: `hardline: ${refused.rule}` };
    const timeout_ms = Math.min(args.timeout_ms ?? TERMINAL_TIMEOUT_MS, TERMINAL_TIMEOUT_MS);
    const outcome = await run_shell_command(args.command, {
      work_dir: context.work_dir,
      signal: context.signal,
      timeout_ms,
      env_passthrough: env_passthrough_of(context),
      max_output_chars: output_limit_of(context),
      sandbox: sandbox_of(context),
    });
    if (outcome.refused !== undefined) {
      return { ok: false, output: outcome.refused, error: 'sandbox required', sandbox: 'none' };
    }
    const ending = describe_ending(outcome, timeout_ms);
    const body = outcome.output === '' ? '(no output)' : outcome.output.replace(/\n$/, '');
    const ok =
      outcome.exit_code === 0 && !outcome.timed_out && !outcome.aborted && !outcome.stopped;
    const output = [body, ending, ...outcome.notes].join('\n');
    if (ok) return { ok: true, output, sandbox: outcome.sandbox };
    return { ok: false, output, error: ending.slice(1, -1), sandbox: outcome.sandbox };
  },
  async preview(args) {
    return { kind: 'command', text: args.command };
  },
};

import { stat } from 'node:fs/promises';
import type { Tool, ToolOutput, ToolRunContext } from '@lich/core';
import { z } from 'zod';
import { child_env, env_passthrough_of } from './env.js';
import { check_hardline } from './hardline.js';
import { type ProcessOutcome, run_process } from './process_tree.js';
import { define_builtin } from './registry.js';

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
  /** Credential-like variables kept in the child's environment (see `child_env`). */
  env_passthrough?: readonly string[];
  /** Characters of output kept (head and tail); 50 000 by default. */
  max_output_chars?: number;
}

/**
 * Runs `command` with `bash -c` in `work_dir`: its own process group, stdin closed, stdout and
 * stderr merged in the order written (one pipe for both), credentials stripped from the
 * environment, output kept within `max_output_chars` (head and tail).
 *
 * Contract: never throws; does not check the hardline (callers do, before); a missing work dir
 * is a `spawn_error`; on timeout or abort the whole process tree is ended before it resolves.
 */
export async function run_shell_command(
  command: string,
  options: ShellCommandOptions,
): Promise<ProcessOutcome> {
  const budget = Math.max(1_000, options.max_output_chars ?? DEFAULT_OUTPUT_CHARS);
  try {
    if (!(await stat(options.work_dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    return {
      exit_code: null,
      exit_signal: null,
      output: '',
      truncated: false,
      output_bytes: 0,
      timed_out: false,
      aborted: false,
      duration_ms: 0,
      spawn_error: `the work dir ${options.work_dir} does not exist or is not a folder`,
    };
  }
  const env = child_env({ passthrough: options.env_passthrough });
  // nothing can prompt: stdin is closed, so a prompt would only hang until the timeout
  env.GIT_TERMINAL_PROMPT = '0';
  return run_process({
    file: 'bash',
    // one pipe for both streams keeps their order; on the command's own line so bash's
    // error messages keep their line numbers
    args: ['-c', `exec 2>&1; ${command}`],
    cwd: options.work_dir,
    env,
    signal: options.signal,
    timeout_ms: options.timeout_ms,
    head_bytes: Math.floor(budget * 0.4),
    tail_bytes: Math.floor(budget * 0.6) - 200,
  });
}

/** The closing line of a command's report: how it ended. */
export function describe_ending(outcome: ProcessOutcome, timeout_ms?: number): string {
  if (outcome.spawn_error !== undefined) return `[could not start: ${outcome.spawn_error}]`;
  if (outcome.timed_out) {
    return `[timed out after ${timeout_ms ?? outcome.duration_ms} ms; the process tree was killed]`;
  }
  if (outcome.aborted) return '[aborted; the process tree was killed]';
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
 * with it. Variables named like credentials (KEY, TOKEN, SECRET, PASSWORD) are not passed on
 * unless listed in `context.env_passthrough`.
 */
export const terminal_tool: Tool<TerminalArgs> = define_builtin({
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
    });
    const ending = describe_ending(outcome, timeout_ms);
    const body = outcome.output === '' ? '(no output)' : outcome.output.replace(/\n$/, '');
    const ok = outcome.exit_code === 0 && !outcome.timed_out && !outcome.aborted;
    const output = `${body}\n${ending}`;
    if (ok) return { ok: true, output };
    return { ok: false, output, error: ending.slice(1, -1) };
  },
});

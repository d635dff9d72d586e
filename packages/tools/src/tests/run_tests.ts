import type { Tool, ToolOutput } from '@lich/core';
import { truncate_text } from '@lich/core';
import { z } from 'zod';
import { type Sandbox, type SandboxUsed, sandbox_of } from '../sandbox/sandbox.js';
import { env_passthrough_of } from '../shell/env.js';
import { check_hardline } from '../shell/hardline.js';
import { describe_ending, output_limit_of, run_shell_command } from '../shell/terminal.js';
import { failure_section, parse_test_counts, type TestCounts } from './test_counts.js';
import { detect_test_command, TEST_COMMAND_SOURCES, type TestCommand } from './test_detect.js';

/** The time limit of one test run. */
export const RUN_TESTS_TIMEOUT_MS = 600_000;
const DEFAULT_OUTPUT_CHARS = 50_000;
/** Output of a passing run shown to the model (its end, where the summary is). */
const PASSING_TAIL_CHARS = 2_000;

const parameters = z
  .object({
    command: z
      .string()
      .min(1)
      .optional()
      .describe('The test command to run instead of the one detected from the project files.'),
  })
  .strict();

/** Arguments of `run_tests`. */
export type RunTestsArgs = z.infer<typeof parameters>;

/** How to run a project's tests. */
export interface RunProjectTestsOptions {
  work_dir: string;
  /** A command line to run instead of the detected one. */
  command?: string;
  signal?: AbortSignal;
  /** `RUN_TESTS_TIMEOUT_MS` by default. */
  timeout_ms?: number;
  /** Credential-like variables kept in the child's environment (see `child_env`). */
  env_passthrough?: readonly string[];
  /** Characters of report kept; 50 000 by default. */
  max_output_chars?: number;
  /** The sandbox the tests run in; the default one (`auto`, no network) when absent. */
  sandbox?: Sandbox;
}

/** The outcome of a test run. `output` is the report written for the model. */
export interface TestRunReport {
  /** True only when the test command exited with code 0. */
  ok: boolean;
  output: string;
  error?: string;
  /** The command run, when one was found. */
  command?: TestCommand;
  exit_code: number | null;
  counts?: TestCounts;
  timed_out: boolean;
  aborted: boolean;
  duration_ms: number;
  /** The sandbox the tests ran under, or `none`; absent when nothing ran. */
  sandbox?: SandboxUsed;
}

function describe_counts(counts: TestCounts | undefined): string {
  if (!counts) return 'no test summary recognised';
  const parts = [`${counts.failed} failed`, `${counts.passed} passed`];
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  return `${parts.join(', ')} (${counts.runner})`;
}

function not_run(message: string, error: string, command?: TestCommand): TestRunReport {
  return {
    ok: false,
    output: message,
    error,
    command,
    exit_code: null,
    timed_out: false,
    aborted: false,
    duration_ms: 0,
  };
}

/**
 * Runs the project's tests in `work_dir`: the given `command`, else the detected one
 * (`detect_test_command`), through `run_shell_command` (the sandbox, its own process group, stdin
 * closed, credentials stripped) with `CI=true` (so runners do not watch), for at most `timeout_ms`.
 *
 * Contract: never throws; `ok` is true only for exit code 0. The report names the command and
 * why it was chosen, the counts read from the runner's summary, and for a failed run the failure
 * section of the output (clamped to `max_output_chars`, head and tail kept); for a passing run the
 * end of the output. No command found, a command refused by the hardline, a timeout or an abort
 * are `ok: false` with a message saying so; on timeout or abort the process tree is ended.
 */
export async function run_project_tests(options: RunProjectTestsOptions): Promise<TestRunReport> {
  const budget = Math.max(1_000, options.max_output_chars ?? DEFAULT_OUTPUT_CHARS);
  let command: TestCommand | undefined;
  if (options.command !== undefined) {
    command = { command: options.command, kind: 'explicit', reason: 'given' };
  } else {
    command = await detect_test_command(options.work_dir);
    if (!command) {
      return not_run(
        `No test command found in ${options.work_dir}. Looked for ${TEST_COMMAND_SOURCES}. ` +
          'Pass `command` to run one explicitly.',
        'no test command found',
      );
    }
  }
  const refused = check_hardline(command.command, { cwd: options.work_dir });
  if (refused) return not_run(refused.message, `hardline: ${refused.rule}`, command);

  const timeout_ms = options.timeout_ms ?? RUN_TESTS_TIMEOUT_MS;
  const outcome = await run_shell_command(command.command, {
    work_dir: options.work_dir,
    signal: options.signal,
    timeout_ms,
    env_passthrough: options.env_passthrough,
    // runners do not watch under CI; a CI value already set is kept
    extra_env: { CI: process.env.CI ?? 'true' },
    // room for a long failure report; the report itself is clamped to the budget below
    keep_bytes: { head: 4 * budget, tail: 4 * budget },
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
  });
  if (outcome.refused !== undefined) return not_run(outcome.refused, 'sandbox required', command);
  const counts = parse_test_counts(outcome.output);
  const ok = outcome.exit_code === 0 && !outcome.timed_out && !outcome.aborted;
  const header = [
    ok ? `Tests passed: ${describe_counts(counts)}.` : `Tests failed: ${describe_counts(counts)}.`,
    `Command: ${command.command} (${command.reason}) ${describe_ending(outcome, timeout_ms)}`,
  ].join('\n');
  const room = Math.max(200, budget - header.length - 40);
  const body = ok
    ? `End of the output:\n${truncate_text(outcome.output.slice(-PASSING_TAIL_CHARS), room)}`
    : `Failing output:\n${truncate_text(failure_section(outcome.output).trimEnd(), room)}`;
  const report: TestRunReport = {
    ok,
    output: `${header}\n\n${body}`,
    command,
    exit_code: outcome.exit_code,
    timed_out: outcome.timed_out,
    aborted: outcome.aborted,
    duration_ms: outcome.duration_ms,
  };
  if (counts) report.counts = counts;
  if (!ok) report.error = `tests failed: ${describe_ending(outcome, timeout_ms).slice(1, -1)}`;
  report.sandbox = outcome.sandbox;
  if (outcome.notes.length > 0) report.output += `\n${outcome.notes.join('\n')}`;
  return report;
}

/**
 * `run_tests { command? }`: runs the project's tests (see `run_project_tests`) and reports the
 * counts and the failing output. `ok` is the exit code being 0.
 */
export const run_tests_tool: Tool<RunTestsArgs> = {
  name: 'run_tests',
  description:
    "Run the project's tests (found from package.json, a Makefile, Cargo.toml, go.mod or pytest " +
    'files, or the given command) and report pass/fail counts and the failing output.',
  parameters,
  timeout_ms: RUN_TESTS_TIMEOUT_MS,
  async execute(args, context): Promise<ToolOutput> {
    const report = await run_project_tests({
      work_dir: context.work_dir,
      command: args.command,
      signal: context.signal,
      env_passthrough: env_passthrough_of(context),
      max_output_chars: output_limit_of(context),
      sandbox: sandbox_of(context),
    });
    const sandbox = report.sandbox === undefined ? {} : { sandbox: report.sandbox };
    return report.ok
      ? { ok: true, output: report.output, ...sandbox }
      : { ok: false, output: report.output, error: report.error, ...sandbox };
  },
  async preview(args, context) {
    if (args.command !== undefined) return { kind: 'command', text: args.command };
    const detected = await detect_test_command(context.work_dir);
    return detected === undefined ? undefined : { kind: 'command', text: detected.command };
  },
};

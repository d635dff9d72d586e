import { resolve, sep } from 'node:path';
import type { Tool, ToolOutput, ToolRunContext } from '@lich/core';
import { truncate_text } from '@lich/core';
import { z } from 'zod';
import { path_inside } from './fs/path_inside.js';
import type { Plugin } from './plugin.js';
import { sandbox_of } from './sandbox/sandbox.js';
import { child_env, env_passthrough_of } from './shell/env.js';
import { type ProcessOutcome, run_process } from './shell/run_process.js';
import { basename, nested_scripts, split_commands, strip_prefix } from './shell/shell_commands.js';
import { stdin_scripts } from './shell/shell_expand.js';
import { parse_shell } from './shell/shell_words.js';
import { output_limit_of } from './shell/terminal.js';
import { RUN_TESTS_TIMEOUT_MS, run_project_tests } from './tests/run_tests.js';

/** Settings of the gatekeeper plugin. */
export interface GatekeeperOptions {
  /** The test command to run; detected from the project files when absent. */
  test_command?: string;
  /** Time limit of the test run; `RUN_TESTS_TIMEOUT_MS` by default. */
  test_timeout_ms?: number;
  /**
   * Refuse `terminal` commands that run `git commit`, so every commit goes through `git_commit`
   * and its test run. Default true.
   */
  block_terminal_commits?: boolean;
}

/** Time the git steps of one `git_commit` get, on top of the test run. */
const GIT_STEPS_MS = 60_000;

const parameters = z
  .object({
    message: z
      .string()
      .trim()
      .min(1)
      .describe('The commit message: a short summary line, optionally a blank line and details.'),
  })
  .strict();

/** Arguments of `git_commit`. */
export type GitCommitArgs = z.infer<typeof parameters>;

/**
 * Settings every git command of the gatekeeper runs with, over any config: no hook, no
 * fsmonitor, no descent into submodules (whose configs and hooks a sandboxed command may have
 * written). Git hands `-c` settings down to the git processes it starts.
 */
export const SAFE_GIT_SETTINGS: readonly string[] = Object.freeze([
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'submodule.recurse=false',
  '-c',
  'diff.ignoreSubmodules=all',
  '-c',
  'status.submoduleSummary=false',
]);

function git(args: string[], context: ToolRunContext): Promise<ProcessOutcome> {
  const env = child_env({ passthrough: env_passthrough_of(context) });
  env.GIT_TERMINAL_PROMPT = '0';
  return run_process({
    file: 'git',
    args: [...SAFE_GIT_SETTINGS, ...args],
    cwd: context.work_dir,
    env,
    signal: context.signal,
    timeout_ms: GIT_STEPS_MS,
  });
}

function git_failure(step: string, outcome: ProcessOutcome): ToolOutput {
  const reason =
    outcome.spawn_error !== undefined
      ? `git could not be started (${outcome.spawn_error}); is git installed?`
      : outcome.aborted
        ? 'aborted'
        : outcome.timed_out
          ? `timed out after ${GIT_STEPS_MS} ms`
          : `exit code ${outcome.exit_code}`;
  return {
    ok: false,
    output: `Not committed: \`git ${step}\` failed (${reason}).\n${outcome.output.trim()}`.trim(),
    error: `git ${step} failed: ${reason}`,
  };
}

/**
 * The pathspecs of what the gatekeeper stages and commits: the work dir, but never Lich's own
 * state (`.lich/`, and the session dir wherever it is configured inside the work dir).
 */
export function commit_pathspecs(work_dir: string, session_dir: unknown): string[] {
  const specs = ['.', ':(exclude).lich'];
  if (typeof session_dir === 'string' && session_dir !== '') {
    const inside = path_inside(resolve(work_dir), resolve(work_dir, session_dir));
    if (inside !== null && inside !== '') specs.push(`:(exclude)${inside.split(sep).join('/')}`);
  }
  return specs;
}

/**
 * The `git_commit { message }` tool: runs the project's tests, and only when they pass stages
 * every change under the work dir but Lich's own state (`git add -A -- . ':(exclude).lich'`, see
 * `commit_pathspecs`) and commits it with `message`.
 *
 * Contract: never commits unless the test run exited with code 0; a failed run returns
 * `ok: false` with the test report (counts and failing output). A work dir outside a git
 * repository, one with no changes, a missing test command, a failing git step (a missing
 * identity) and an abort each return `ok: false` with a message saying so, and commit nothing.
 * Changes outside the work dir are neither staged nor committed, nor is `.lich/` or the session
 * dir (`context.session_dir`), even when a command staged them. Git runs with
 * `SAFE_GIT_SETTINGS`: no hook or fsmonitor of the repository runs, whatever a command planted.
 */
export function create_git_commit_tool(options: GatekeeperOptions = {}): Tool<GitCommitArgs> {
  const test_timeout_ms = options.test_timeout_ms ?? RUN_TESTS_TIMEOUT_MS;
  return {
    name: 'git_commit',
    description:
      "Commit all changes in the work dir with the given message, but only after the project's " +
      'tests pass. When they fail, nothing is committed and the failures are returned.',
    parameters,
    timeout_ms: test_timeout_ms + GIT_STEPS_MS,
    async execute(args, context): Promise<ToolOutput> {
      const inside = await git(['rev-parse', '--is-inside-work-tree'], context);
      if (inside.spawn_error !== undefined) return git_failure('rev-parse', inside);
      if (inside.exit_code !== 0 || inside.output.trim().split('\n').at(-1) !== 'true') {
        return {
          ok: false,
          output:
            `Not committed: ${context.work_dir} is not inside a git repository.\n` +
            inside.output.trim(),
          error: 'not a git repository',
        };
      }
      const specs = commit_pathspecs(context.work_dir, context.session_dir);
      const status = await git(
        [
          'status',
          '--porcelain',
          '--untracked-files=all',
          '--ignore-submodules=all',
          '--',
          ...specs,
        ],
        context,
      );
      if (status.exit_code !== 0) return git_failure('status', status);
      if (status.output.trim() === '') {
        return {
          ok: false,
          output: 'Nothing to commit: the work dir has no changes.',
          error: 'nothing to commit',
        };
      }

      const report = await run_project_tests({
        work_dir: context.work_dir,
        command: options.test_command,
        signal: context.signal,
        timeout_ms: test_timeout_ms,
        env_passthrough: env_passthrough_of(context),
        max_output_chars: output_limit_of(context),
        sandbox: sandbox_of(context),
      });
      if (!report.ok) {
        return {
          ok: false,
          output: `Not committed: the tests did not pass. Fix them, then call git_commit again.\n\n${report.output}`,
          error: `not committed: ${report.error ?? 'tests failed'}`,
        };
      }
      if (context.signal.aborted) {
        return { ok: false, output: 'Not committed: aborted.', error: 'aborted' };
      }

      const added = await git(['add', '-A', '--', ...specs], context);
      if (added.exit_code !== 0) return git_failure('add', added);
      // the pathspec commits what it names only (`--only`): a path a command staged is left out
      const committed = await git(
        ['commit', '--quiet', '--no-verify', '-m', args.message, '--', ...specs],
        context,
      );
      if (committed.exit_code !== 0) return git_failure('commit', committed);
      const shown = await git(['show', '--stat', '--format=%h %s', 'HEAD'], context);
      const summary = report.output.split('\n', 1)[0] ?? 'Tests passed.';
      return {
        ok: true,
        output: `Committed ${truncate_text(shown.output.trim(), 4_000)}\n\n${summary}`,
      };
    },
  };
}

/** Git options that take the next word as their value (`git -C dir commit`). */
const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

/**
 * True when a bash command line runs `git commit`, also behind `sudo`/`env`, git's own options
 * (`git -C dir commit`), in `$(…)`, `bash -c '…'`, `eval`, or known text piped into a shell
 * (`echo 'git commit' | sh`). Quoted text is not a command.
 *
 * Contract: pure, never throws.
 */
export function runs_git_commit(command: string, depth = 0): boolean {
  if (depth > 6) return false;
  const { tokens, substitutions } = parse_shell(command);
  for (const simple of split_commands(tokens)) {
    const words = strip_prefix(simple.words);
    if (words[0] !== undefined && basename(words[0]) === 'git') {
      let i = 1;
      while (i < words.length && words[i]!.startsWith('-')) {
        i += GIT_VALUE_OPTIONS.has(words[i]!) ? 2 : 1;
      }
      if (words[i] === 'commit') return true;
    }
    if (nested_scripts(simple).some((script) => runs_git_commit(script, depth + 1))) return true;
    const piped = stdin_scripts(simple, { vars: new Map() });
    if (piped.some((script) => runs_git_commit(script, depth + 1))) return true;
  }
  return substitutions.some((script) => runs_git_commit(script, depth + 1));
}

/**
 * The built-in gatekeeper plugin (name `gatekeeper`): registers `git_commit`
 * (`create_git_commit_tool`), which commits only when the tests pass, and unless
 * `block_terminal_commits` is false, refuses `terminal` calls that would run `git commit`
 * themselves, pointing the model to `git_commit`.
 */
export function gatekeeper_plugin(options: GatekeeperOptions = {}): Plugin {
  return {
    name: 'gatekeeper',
    register(api) {
      api.register_tool(create_git_commit_tool(options));
      if (options.block_terminal_commits === false) return;
      api.before_tool_call((name, args) => {
        const command = (args as { command?: unknown } | null)?.command;
        if (name !== 'terminal' || typeof command !== 'string' || !runs_git_commit(command)) {
          return undefined;
        }
        return {
          block:
            'commits go through the git_commit tool, which runs the tests first and commits only ' +
            'when they pass. Call git_commit { message } instead of git commit.',
        };
      });
    },
  };
}

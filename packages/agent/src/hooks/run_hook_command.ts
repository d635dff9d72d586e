import { randomBytes } from 'node:crypto';
import { run_shell_command, type Sandbox } from '@lich/tools';

/** A hook command's time limit when it names none, in seconds (Claude Code's default). */
export const HOOK_TIMEOUT_SECONDS = 60;
/** Characters of a hook's stdout and of its stderr kept (head and tail). */
export const HOOK_OUTPUT_CHARS = 10_000;

/** How one hook command ended. */
export interface HookCommandOutcome {
  /** The exit code; null when it was killed, timed out or never started. */
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  /** Why it did not run at all (the sandbox refused it, the work dir is gone). */
  not_run?: string;
}

/** How a hook command is run. */
export interface HookCommandOptions {
  work_dir: string;
  sandbox: Sandbox;
  timeout_seconds?: number;
  env_passthrough?: readonly string[];
  signal?: AbortSignal;
}

function clamp(text: string): string {
  if (text.length <= HOOK_OUTPUT_CHARS) return text;
  const head = Math.floor(HOOK_OUTPUT_CHARS * 0.4);
  const tail = HOOK_OUTPUT_CHARS - head;
  return `${text.slice(0, head)}\n[… ${text.length - HOOK_OUTPUT_CHARS} characters cut …]\n${text.slice(-tail)}`;
}

/**
 * Runs one hook command as `terminal` runs commands (bash, the sandbox, the allow-listed
 * environment, the whole process tree ended on timeout) with `input` on its stdin, and tells its
 * stdout from its stderr. `CLAUDE_PROJECT_DIR` and `LICH_PROJECT_DIR` are the work dir.
 *
 * Contract: never throws; the output of each stream is clamped to `HOOK_OUTPUT_CHARS`.
 */
export async function run_hook_command(
  command: string,
  input: string,
  options: HookCommandOptions,
): Promise<HookCommandOutcome> {
  const mark = `LICH_HOOK_${randomBytes(8).toString('hex')}`;
  // stdin from a quoted here-document (nothing in it is expanded); stdout to a private file, so
  // the merged stream the shell runner returns is stderr, the mark, then stdout
  const script = [
    `__lich_out=$(mktemp) || exit 1`,
    `{ ${command}`,
    `} 1>"$__lich_out" <<'${mark}'`,
    input,
    mark,
    '__lich_code=$?',
    `printf '\\n${mark}\\n'`,
    'cat "$__lich_out"; rm -f "$__lich_out"',
    'exit $__lich_code',
  ].join('\n');
  const timeout_seconds = options.timeout_seconds ?? HOOK_TIMEOUT_SECONDS;
  const outcome = await run_shell_command(script, {
    work_dir: options.work_dir,
    sandbox: options.sandbox,
    timeout_ms: Math.round(timeout_seconds * 1000),
    env_passthrough: options.env_passthrough ?? [],
    extra_env: { CLAUDE_PROJECT_DIR: options.work_dir, LICH_PROJECT_DIR: options.work_dir },
    keep_bytes: { head: 64 * 1024, tail: 64 * 1024 },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (outcome.refused !== undefined || outcome.spawn_error !== undefined) {
    return {
      exit_code: null,
      stdout: '',
      stderr: '',
      timed_out: false,
      not_run: outcome.refused ?? outcome.spawn_error,
    };
  }
  const split = outcome.output.lastIndexOf(`\n${mark}\n`);
  const stderr = split < 0 ? outcome.output : outcome.output.slice(0, split);
  const stdout = split < 0 ? '' : outcome.output.slice(split + mark.length + 2);
  return {
    exit_code: outcome.timed_out ? null : outcome.exit_code,
    stdout: clamp(stdout),
    stderr: clamp(stderr.trim()),
    timed_out: outcome.timed_out,
  };
}

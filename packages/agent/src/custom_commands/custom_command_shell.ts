import { check_hardline, open_in_work_dir, run_shell_command, type Sandbox } from '@lich/tools';
import type { ApprovalMode } from '../host/session_host_types.js';
import type { PermissionPolicy } from '../permissions/permission_policy.js';
import { parse_rule } from '../permissions/permission_rules.js';
import { lich_permission_rules } from '../skills/claude_tool_names.js';
import type { CustomCommand } from './custom_command_types.js';
import type { ExpandIo } from './expand_custom_command.js';

/** A command's shell line may run this long. */
const SHELL_LINE_TIMEOUT_MS = 30_000;
/** Characters of a shell line's output put into the prompt. */
const SHELL_LINE_OUTPUT_CHARS = 10_000;
/** Bytes of a file a command names put into the prompt. */
const FILE_BYTES = 256 * 1024;

/** What a command's shell lines and files are checked against. */
export interface CommandIoOptions {
  work_dir: string;
  sandbox: Sandbox;
  policy: PermissionPolicy;
  /** The approval mode of the config (`permissions.mode`), `default` when it names none. */
  mode: ApprovalMode;
  /** Whether the folder is trusted: a repository's command runs no shell line until it is. */
  trusted: boolean;
  env_passthrough: readonly string[];
}

/**
 * The shell and file access of one custom command: a shell line runs only when the folder is
 * trusted (for a repository's command), the hardline lets it, and the permission policy allows
 * `terminal` with it — by a rule, the mode, or the command's own `allowed-tools` — and then runs
 * like a `terminal` call (the sandbox, a time limit, clamped output). Otherwise the line's place
 * in the prompt says why it did not run. Files are read through the path guard of the work dir.
 */
export function custom_command_io(command: CustomCommand, options: CommandIoOptions): ExpandIo {
  const granted = {
    allow: (command.allowed_tools ?? []).flatMap(lich_permission_rules).flatMap((rule) => {
      try {
        return [parse_rule(rule)];
      } catch {
        return [];
      }
    }),
    deny: [],
  };
  return {
    async run_shell(line) {
      if (command.origin === 'project' && !options.trusted) {
        return `[not run: ${line} — this folder is not trusted (lich trust)]`;
      }
      const refused = check_hardline(line, { cwd: options.work_dir });
      if (refused) return `[not run: ${line} — ${refused.message}]`;
      const decision = options.policy.decide('terminal', { command: line }, options.mode, granted);
      if (decision.decision !== 'allow') {
        return `[not run: ${line} — not allowed; add Bash(${line}) to the command's allowed-tools, or terminal(${line}) to permissions.allow]`;
      }
      const outcome = await run_shell_command(line, {
        work_dir: options.work_dir,
        sandbox: options.sandbox,
        timeout_ms: SHELL_LINE_TIMEOUT_MS,
        env_passthrough: options.env_passthrough,
        max_output_chars: SHELL_LINE_OUTPUT_CHARS,
      });
      if (outcome.refused !== undefined) return `[not run: ${line} — ${outcome.refused}]`;
      const output = outcome.output.replace(/\n$/, '');
      return outcome.exit_code === 0 ? output : `${output}\n[exit code ${outcome.exit_code}]`;
    },
    async read_file(path) {
      try {
        const opened = await open_in_work_dir(options.work_dir, path);
        try {
          if (opened.size > FILE_BYTES) return undefined;
          return (await opened.handle.readFile()).toString('utf8');
        } finally {
          await opened.handle.close().catch(() => undefined);
        }
      } catch {
        return undefined;
      }
    },
  };
}

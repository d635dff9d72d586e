import { createInterface } from 'node:readline';
import type { AgentConfig, ApprovalMode, Approver, PermissionOption } from '@lich/agent';
import type { CommandContext } from './context.js';
import { stdin_kind } from './stdin_kind.js';
import { UsageError } from './usage_error.js';

/** How a command's runs are approved. */
export interface CliApproval {
  mode: ApprovalMode;
  /** Asks on the terminal; absent off a terminal (then `ask` means deny, with how to allow). */
  approver?: Approver;
}

const MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'yolo'];

/** Reads one answer line: a fresh readline on stdin, or the chat's own (`question`). */
export type AskLine = (prompt: string, signal: AbortSignal) => Promise<string | null>;

/**
 * The approval mode and approver of a command, from `--yolo`, `--approval-mode` and the config:
 * a flag wins, then `permissions.mode`; with neither, a terminal (stdin and stderr both one) asks
 * inline in `default` mode, and anything else runs as before permissions existed (`yolo`: every
 * call runs but those a deny rule names). Throws a `UsageError` for a bad mode or both flags.
 */
export async function cli_approval(
  context: CommandContext,
  values: { 'approval-mode'?: unknown; yolo?: unknown },
  config: AgentConfig,
  command: string,
  ask?: AskLine,
): Promise<CliApproval> {
  const flag = values['approval-mode'];
  if (flag !== undefined && (typeof flag !== 'string' || !MODES.includes(flag as ApprovalMode))) {
    throw new UsageError(
      `--approval-mode must be one of ${MODES.join(', ')}, got '${String(flag)}'`,
      command,
    );
  }
  if (values.yolo === true && flag !== undefined && flag !== 'yolo') {
    throw new UsageError(
      `--yolo and --approval-mode ${String(flag)} contradict each other`,
      command,
    );
  }
  const on_terminal = context.io.stderr.isTTY === true && (await stdin_kind(context.io)) === 'tty';
  const mode: ApprovalMode =
    values.yolo === true
      ? 'yolo'
      : ((flag as ApprovalMode | undefined) ??
        config.permissions.mode ??
        (on_terminal ? 'default' : 'yolo'));
  if (!on_terminal || mode === 'yolo') return { mode };
  return { mode, approver: terminal_approver(context, ask ?? ask_on_stdin(context)) };
}

/** Asks with a readline of its own over stdin, closed after each answer. */
export function ask_on_stdin(context: CommandContext): AskLine {
  return (prompt, signal) =>
    new Promise((resolve) => {
      const lines = createInterface({
        input: context.io.stdin,
        output: context.io.stderr,
        terminal: true,
      });
      let done = false;
      const finish = (answer: string | null) => {
        if (done) return;
        done = true;
        signal.removeEventListener('abort', on_abort);
        lines.close();
        resolve(answer);
      };
      const on_abort = () => finish(null);
      signal.addEventListener('abort', on_abort, { once: true });
      // Ctrl+C at the prompt aborts the run, as it does while the answer streams
      lines.on('SIGINT', () => {
        finish(null);
        process.kill(process.pid, 'SIGINT');
      });
      lines.on('close', () => finish(null));
      lines.question(prompt, (answer) => finish(answer));
    });
}

function option_of(answer: string): PermissionOption | null {
  const word = answer.trim().toLowerCase();
  if (word === 'y' || word === 'yes') return 'allow_once';
  if (word === 'a' || word === 'always') return 'allow_always';
  if (word === 'n' || word === 'no' || word === '') return 'reject_once';
  return null;
}

/**
 * An approver asking on the terminal: `y` runs the call once, `a` runs it and every call like it
 * for the rest of the session, `n` (or Enter) declines.
 */
export function terminal_approver(context: CommandContext, ask: AskLine): Approver {
  return async (request, signal) => {
    const { err } = context;
    context.say(`${err.yellow('?')} ${err.bold(request.title)}`);
    for (;;) {
      const answer = await ask(
        `  allow? ${err.bold('[y]')}es once / ${err.bold('[a]')}lways this session / ${err.bold('[n]')}o › `,
        signal,
      );
      if (answer === null || signal.aborted) return { option: 'cancelled' };
      const option = option_of(answer);
      if (option !== null) return { option };
      context.say(err.dim('  answer y, a or n'));
    }
  };
}

import type { AgentConfig, ApprovalMode, Approver, PermissionOption } from '@lich/agent';
import type { ToolPreview } from '@lich/core';
import type { CommandContext } from './context.js';
import { type PressedKey, read_key, read_line } from './key_question.js';
import { stdin_kind } from './stdin_kind.js';
import type { Style } from './style.js';
import { UsageError } from './usage_error.js';

/** How a command's runs are approved. */
export interface CliApproval {
  mode: ApprovalMode;
  /** Asks on the terminal; absent off a terminal (then `ask` means deny, with how to allow). */
  approver?: Approver;
}

const MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

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
  return { mode, approver: terminal_approver(context) };
}

/** What a key answers: y once, a always, n (or Enter, Esc) no, e no with a note. */
function option_of(key: PressedKey): PermissionOption | 'note' | null {
  const typed = key.text.toLowerCase();
  if (typed === 'y') return 'allow_once';
  if (typed === 'a') return 'allow_always';
  if (typed === 'n' || key.name === 'return' || key.name === 'enter' || key.name === 'escape') {
    return 'reject_once';
  }
  if (typed === 'e') return 'note';
  return null;
}

/** The lines of a call's preview for stderr: a diff coloured, cut to `max_lines`. */
export function preview_lines(preview: ToolPreview, err: Style, max_lines = 40): string[] {
  let body = preview.text.replace(/\n$/, '').split('\n');
  // the diff's header lines repeat the title
  if (preview.kind === 'diff') body = body.filter((line) => !/^(---|\+\+\+) /.test(line));
  const shown = body.length > max_lines ? body.slice(0, max_lines - 1) : body;
  const lines = shown.map((line) => {
    if (preview.kind !== 'diff') return `  ${err.dim('│')} ${line}`;
    if (line.startsWith('+')) return `  ${err.dim('│')} ${err.green(line)}`;
    if (line.startsWith('-')) return `  ${err.dim('│')} ${err.red(line)}`;
    if (line.startsWith('@@')) return `  ${err.dim('│')} ${err.cyan(line)}`;
    return `  ${err.dim('│')} ${err.dim(line)}`;
  });
  if (shown.length < body.length) {
    lines.push(`  ${err.dim(`│ … ${body.length - shown.length} more lines`)}`);
  }
  return lines;
}

/**
 * An approver asking on the terminal, one key: `y` runs the call once, `a` runs it and every call
 * like it for the rest of the session, `n` (the default: Enter, Esc) declines, `e` declines with
 * a note for the model. The question shows what the call would do (the diff of an edit, a new
 * file's first lines, the whole command line) and takes keys only after a quiet spell
 * (`read_key`), so type-ahead never answers it.
 */
export function terminal_approver(context: CommandContext): Approver {
  return async (request, signal) => {
    const { err } = context;
    const summary = request.preview?.summary ? `  ${err.dim(request.preview.summary)}` : '';
    context.say(`\n${err.yellow('?')} ${err.bold(request.title)}${summary}`);
    if (request.preview !== undefined && request.preview.text !== '') {
      for (const line of preview_lines(request.preview, err)) context.say(line);
    }
    // a plan (plan mode's exit_plan_mode): approving also picks the mode that follows
    const choices =
      request.tool === 'exit_plan_mode'
        ? `  approve? ${err.bold('y')} yes, then ask before edits · ${err.bold('a')} yes, and auto-edit · ${err.bold('N')}o, keep planning · ${err.bold('e')} no, and say what to change › `
        : `  allow? ${err.bold('y')} once · ${err.bold('a')} always this session · ${err.bold('N')}o · ${err.bold('e')} no, and say why › `;
    context.io.stderr.write(choices);
    for (;;) {
      const key = await read_key(context.io.stdin, signal);
      if (key === null || signal.aborted) {
        context.io.stderr.write('\n');
        return { option: 'cancelled' };
      }
      if (key.ctrl && key.name === 'c') {
        context.io.stderr.write('\n');
        process.kill(process.pid, 'SIGINT');
        return { option: 'cancelled' };
      }
      const option = option_of(key);
      if (option === null) continue;
      context.io.stderr.write(`${key.text.trim() === '' ? 'n' : key.text}\n`);
      if (option !== 'note') return { option };
      const note = await read_line(
        context.io.stdin,
        context.io.stderr,
        `  ${err.dim('why not? (the model reads this)')} › `,
        signal,
      );
      if (note === null || signal.aborted) return { option: 'cancelled' };
      return { option: 'reject_once', ...(note.trim() === '' ? {} : { note: note.trim() }) };
    }
  };
}

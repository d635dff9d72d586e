/**
 * The bottom of the screen: the input editor with its cursor, the completion list, a pending
 * permission request, and the status line. Pure functions of state to lines.
 */
import { type CommandInfo, file_mentions, type SessionInfo } from '@lich/agent';
import string_width from 'string-width';
import { type CompletionSources, chip_label, completions, type EditorState } from './editor.js';
import type { Palette } from './palette.js';
import type { PermissionView, StatusView } from './state_types.js';
import { fit, format_tokens, list_description } from './text_fit.js';

/** The most editor lines shown; the view follows the cursor. */
const MAX_INPUT_LINES = 8;

/** Splits `line` into rows of `width` columns (by character, so the cursor maps exactly). */
function rows_of(line: string, width: number): string[] {
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const char of line) {
    const size = string_width(char);
    if (used + size > width) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += char;
    used += size;
  }
  rows.push(row);
  return rows;
}

/**
 * The editor's lines: `› ` then the text, the cursor drawn as an inverse cell (the terminal's
 * own cursor stays hidden, so nothing fights over it). Chips are dimmed. In reverse search,
 * the query and the entry it found.
 */
export function input_lines(
  editor: EditorState,
  palette: Palette,
  width: number,
  options: { placeholder?: string; focused?: boolean } = {},
): string[] {
  const focused = options.focused ?? true;
  if (editor.search !== null) {
    const found = editor.search.match === null ? '' : (editor.history[editor.search.match] ?? '');
    const label = `(search) '${editor.search.query}': `;
    return [palette.dim(label) + fit(found.replace(/\n/g, ' ⏎ '), width - string_width(label))];
  }
  const inner = Math.max(10, width - 2);
  if (editor.text === '' && options.placeholder && focused) {
    return [
      `${palette.cyan('›')} ${palette.inverse(' ')}${palette.dim(fit(options.placeholder, inner - 1))}`,
    ];
  }
  const marker = '\u0000';
  const marked = `${editor.text.slice(0, editor.cursor)}${marker}${editor.text.slice(editor.cursor)}`;
  const rows = marked.split('\n').flatMap((line) => rows_of(line, inner - 1));
  let cursor_row = rows.findIndex((row) => row.includes(marker));
  const styled = rows.map((row) => {
    const at = row.indexOf(marker);
    if (at === -1) return row;
    const after = row.slice(at + 1);
    const under = after === '' ? ' ' : [...after][0]!;
    const cursor = focused ? palette.inverse(under) : under;
    return (
      row.slice(0, at) + cursor + after.slice(under === ' ' && after === '' ? 0 : under.length)
    );
  });
  let shown = styled;
  if (styled.length > MAX_INPUT_LINES) {
    const start = Math.min(
      Math.max(0, cursor_row - MAX_INPUT_LINES + 1),
      styled.length - MAX_INPUT_LINES,
    );
    shown = styled.slice(start, start + MAX_INPUT_LINES);
    cursor_row -= start;
  }
  const chips = editor.pastes.map(chip_label);
  return shown.map((row, index) => {
    let text = row;
    for (const chip of chips) text = text.split(chip).join(palette.dim(chip));
    return `${index === 0 ? palette.cyan('›') : ' '} ${text}`;
  });
}

/** A file name that is a picture the models take. */
const PICTURE = /\.(png|jpe?g|gif|webp)$/i;

/**
 * The files the prompt will attach, as chips under the editor: `▣ shot.png` for a picture (sent
 * as itself), `+ notes.txt` for a text file (its text follows the prompt). Only `@path` words
 * that name a file of the work dir, or a picture by its full path, count, as only those are
 * attached; none, no line.
 */
export function attachment_lines(
  editor: EditorState,
  files: readonly string[],
  palette: Palette,
  width: number,
): string[] {
  if (editor.search !== null || !editor.text.includes('@')) return [];
  const known = new Set(files);
  // a picture named by its full path (dropped on the terminal) is attached from outside too
  const chips = file_mentions(editor.text)
    .filter((path) => known.has(path) || (path.startsWith('/') && PICTURE.test(path)))
    .map((path) =>
      PICTURE.test(path)
        ? `▣ ${path.startsWith('/') ? path.slice(path.lastIndexOf('/') + 1) : path}`
        : `+ ${path}`,
    );
  if (chips.length === 0) return [];
  return [palette.dim(fit(`  ${chips.map((chip) => `[${chip}]`).join(' ')}`, width))];
}

/** Up to five completions for what is being typed, with a command's description. */
export function completion_lines(
  editor: EditorState,
  sources: CompletionSources,
  commands: readonly CommandInfo[],
  palette: Palette,
  width: number,
): string[] {
  if (editor.search !== null) return [];
  const offered = completions(editor, sources);
  if (offered === null || offered.candidates.length === 0) return [];
  const { candidates, selected } = offered;
  if (candidates.length === 1 && editor.cycle === null && offered.typed === candidates[0])
    return [];
  const shown = candidates.slice(0, 5).map((candidate) => {
    const command = commands.find((entry) => `/${entry.name}` === candidate);
    const label = `${candidate}${command?.argument_hint ? ` ${command.argument_hint}` : ''}`;
    return { label, description: command ? list_description(command.description) : '' };
  });
  // one column for the descriptions, whatever the labels' lengths
  const column = Math.max(...shown.map((entry) => string_width(entry.label)));
  const lines = shown.map((entry, index) => {
    const padded = `${entry.label}${' '.repeat(column - string_width(entry.label))}`;
    const text = fit(
      entry.description === '' ? entry.label : `${padded}  ${entry.description}`,
      width - 2,
    );
    return `  ${index === selected ? palette.inverse(text) : palette.dim(text)}`;
  });
  if (candidates.length > 5) lines.push(palette.dim(`  … ${candidates.length - 5} more (Tab)`));
  return lines;
}

const OPTION_KEYS: Record<string, { key: string; label: string }> = {
  allow_once: { key: '1', label: 'allow once' },
  allow_always: { key: '2', label: 'allow always' },
  reject_once: { key: '3', label: 'reject' },
  reject_always: { key: '4', label: 'reject always' },
};

/** The answers to a plan (`exit_plan_mode`): approving also picks the mode the session moves to. */
const PLAN_OPTION_KEYS: Record<string, { key: string; label: string }> = {
  allow_once: { key: '1', label: 'approve (then ask before edits)' },
  allow_always: { key: '2', label: 'approve and auto-edit' },
  reject_once: { key: '3', label: 'keep planning' },
};

/** The keys that answer a permission request, option by option (`y`, `a`, `n` as well). */
export const PERMISSION_KEYS: Record<string, string> = {
  '1': 'allow_once',
  y: 'allow_once',
  '2': 'allow_always',
  a: 'allow_always',
  '3': 'reject_once',
  n: 'reject_once',
  '4': 'reject_always',
};

/** The keys that reject a request with a note for the model. */
export const NOTE_KEYS: readonly string[] = ['5', 'e'];

/** How a permission request is drawn. */
export interface PermissionLook {
  /** Whether keys answer it yet (see the app's arming delay). */
  armed: boolean;
  /** The most lines its preview may take. */
  max_preview_lines: number;
  /** The note being typed, when the person chose "reject with a note". */
  note?: EditorState;
}

function preview_line(line: string, kind: string, palette: Palette, width: number): string {
  const text = fit(line, width - 4);
  if (kind !== 'diff') return `  ${palette.dim('│')} ${text}`;
  if (line.startsWith('+++') || line.startsWith('---'))
    return `  ${palette.dim('│')} ${palette.bold(text)}`;
  if (line.startsWith('+')) return `  ${palette.dim('│')} ${palette.green(text)}`;
  if (line.startsWith('-')) return `  ${palette.dim('│')} ${palette.red(text)}`;
  if (line.startsWith('@@')) return `  ${palette.dim('│')} ${palette.cyan(text)}`;
  return `  ${palette.dim('│')} ${palette.dim(text)}`;
}

/**
 * A permission request: a title that cannot be missed, what the call would do (the diff of an
 * edit, a new file's first lines, the whole command line), then the answers. Until `armed`, the
 * answers are dimmed and keys go to the editor; with a note being typed, its input line.
 */
export function permission_lines(
  request: PermissionView,
  waiting: number,
  palette: Palette,
  width: number,
  look: PermissionLook = { armed: true, max_preview_lines: 12 },
): string[] {
  const lines = [palette.yellow('─'.repeat(Math.max(10, Math.min(width, 60))))];
  const summary = request.preview?.summary ? `  ${palette.dim(request.preview.summary)}` : '';
  const plan = request.tool === 'exit_plan_mode';
  const question = plan ? 'Approve this plan?' : `Allow ${request.title}?`;
  lines.push(
    `${palette.yellow(palette.bold('?'))} ${palette.bold(fit(question, width - 2 - (request.preview?.summary?.length ?? 0)))}${summary}`,
  );
  const preview = request.preview;
  if (preview !== undefined && preview.text !== '') {
    const body = preview.text.replace(/\n$/, '').split('\n');
    // a diff's two header lines say nothing the title does not
    const shown_lines =
      preview.kind === 'diff' ? body.filter((line) => !/^(---|\+\+\+) /.test(line)) : body;
    const room = Math.max(3, look.max_preview_lines);
    const cut = shown_lines.length > room;
    for (const line of shown_lines.slice(0, cut ? room - 1 : room)) {
      lines.push(preview_line(line, preview.kind, palette, width));
    }
    if (cut) {
      lines.push(
        `  ${palette.dim(`│ … ${shown_lines.length - room + 1} more lines (the whole text is in the request)`)}`,
      );
    }
  }
  if (look.note !== undefined) {
    lines.push(palette.dim('  Why not? Your words go to the model. Enter sends, Esc goes back.'));
    lines.push(
      ...input_lines(look.note, palette, width, {
        placeholder: 'tell the model what to do instead',
      }),
    );
    return lines;
  }
  const labels = request.options
    .map((option) => (plan ? PLAN_OPTION_KEYS : OPTION_KEYS)[option])
    .filter((entry) => entry !== undefined);
  if (request.options.includes('reject_once')) {
    labels.push({ key: '5', label: plan ? 'say what to change' : 'say why' });
  }
  const more = waiting > 1 ? palette.dim(` (+${waiting - 1} waiting)`) : '';
  if (look.armed) {
    const joined = labels
      .map((entry) => `${palette.bold(entry.key)} ${entry.label}`)
      .join(palette.dim(' · '));
    lines.push(`  ${joined}${more}`);
  } else {
    // until armed the same line, dimmed and led by a wait mark, so the frame keeps its height
    const plain = labels.map((entry) => `${entry.key} ${entry.label}`).join(' · ');
    lines.push(palette.dim(fit(`⧗ ${plain}`, width)));
  }
  return lines;
}

/** The facts the status line shows. */
export interface StatusInput {
  session: SessionInfo | null;
  status: StatusView;
  mode: 'local' | 'serve';
  /** A message that replaces the hints for a moment (`Ctrl+C again to quit`). */
  hint?: string | null;
}

/**
 * The status line: model, provider, tokens in and out, context used, session id, approval mode,
 * sandbox, retries and failovers. Parts that do not fit the width are left out, least useful
 * first; at 60 columns the model, tokens and context stay.
 */
export function status_line(input: StatusInput, palette: Palette, width: number): string {
  if (input.hint) return palette.yellow(fit(input.hint, width));
  const { session, status } = input;
  if (session === null)
    return palette.dim(
      fit(input.mode === 'serve' ? 'connecting to lich serve…' : 'starting…', width),
    );
  const usage = status.usage_total;
  const parts: { text: string; keep: number }[] = [
    { text: session.model, keep: 9 },
    { text: session.provider, keep: 4 },
    {
      text: `↑${format_tokens(usage.input_tokens)} ↓${format_tokens(usage.output_tokens)}${usage.cache_read_tokens ? ` ⟳${format_tokens(usage.cache_read_tokens)}` : ''}`,
      keep: 8,
    },
  ];
  // dollars next to tokens, once the host said them (unknown for a model without a price)
  if (status.cost_total_usd !== undefined) {
    parts.push({ text: format_dollars(status.cost_total_usd), keep: 7 });
  }
  if (status.context_tokens !== undefined && status.context_window) {
    const percent = Math.min(
      999,
      Math.round((status.context_tokens / status.context_window) * 100),
    );
    parts.push({ text: `ctx ${percent}%`, keep: 7 });
  }
  // the id's random tail tells sessions apart
  parts.push({ text: session.session_id.slice(-8), keep: 2 });
  parts.push({ text: session.approval_mode, keep: 6 });
  if (status.sandboxed !== null)
    parts.push({ text: status.sandboxed ? 'sandbox on' : 'sandbox off', keep: 5 });
  if (status.retries > 0)
    parts.push({ text: `${status.retries} retr${status.retries === 1 ? 'y' : 'ies'}`, keep: 6 });
  if (status.failovers > 0)
    parts.push({
      text: `${status.failovers} failover${status.failovers === 1 ? '' : 's'}`,
      keep: 7,
    });
  if (input.mode === 'serve') parts.push({ text: 'serve', keep: 1 });
  const separator = ' · ';
  let shown = parts;
  const length = (list: typeof parts) =>
    string_width(list.map((part) => part.text).join(separator));
  while (shown.length > 1 && length(shown) > width) {
    const lowest = Math.min(...shown.map((part) => part.keep));
    const index = shown.findLastIndex((part) => part.keep === lowest);
    shown = shown.filter((_, at) => at !== index);
  }
  return palette.dim(fit(shown.map((part) => part.text).join(separator), width));
}

/** The session picker of `--resume` without an id: a window of rows around the highlight. */
export function picker_lines(
  picker: {
    sessions: readonly SessionInfo[];
    selected: number;
    subagents?: Readonly<Record<string, number>>;
  },
  palette: Palette,
  width: number,
  max_rows: number,
): string[] {
  const head = palette.bold(
    fit('Resume which session? ↑/↓ choose · Enter open · Esc a new one', width),
  );
  const room = Math.max(1, max_rows - 1);
  const start = Math.min(
    Math.max(0, picker.selected - Math.floor(room / 2)),
    Math.max(0, picker.sessions.length - room),
  );
  const rows = picker.sessions.slice(start, start + room).map((session, offset) => {
    const when = session.updated.replace('T', ' ').slice(0, 16);
    const title = session.title.trim() === '' ? '(untitled)' : session.title.replace(/\s+/g, ' ');
    const children = picker.subagents?.[session.session_id] ?? 0;
    const count = children === 0 ? '' : ` · +${children} subagent${children === 1 ? '' : 's'}`;
    const tail = ` · ${when} · ${session.model}${count} · ${session.session_id.slice(-8)}`;
    const line = `${fit(title, Math.max(10, width - 2 - string_width(tail)))}${tail}`;
    return start + offset === picker.selected
      ? `${palette.cyan('›')} ${palette.inverse(fit(line, width - 2))}`
      : `  ${fit(line, width - 2)}`;
  });
  return [head, ...rows];
}

/** `$0.0123`, `$1.25`, or `$?` for a cost that is unknown (a model without a price). */
export function format_dollars(cost: number | null): string {
  if (cost === null || !Number.isFinite(cost)) return '$?';
  if (cost === 0) return '$0';
  if (cost < 0.01) return `$${cost.toFixed(4)}`;
  if (cost < 100) return `$${cost.toFixed(2)}`;
  return `$${Math.round(cost)}`;
}

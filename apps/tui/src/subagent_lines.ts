/**
 * A subagent's nested block under its `task` call: one line collapsed (`⎿ general: find the
 * loader · read_file src/a.ts · 3 tools · 4.2s`), its calls below it when expanded. Pure.
 */
import type { Palette } from './palette.js';
import type { SubagentView } from './state_types.js';
import { subagent_outcome } from './subagent_state.js';
import { fit, format_duration } from './text_fit.js';
import { tool_subject } from './tool_summary.js';

/** How many of a running child's calls its expanded block shows (the last ones). */
export const EXPANDED_CALLS = 8;

/** What the nested block is drawn with. */
export interface SubagentLinesInput {
  palette: Palette;
  width: number;
  /**
   * The clock of a running child, in the live region; absent in a finished block (a child that
   * did not end there was interrupted).
   */
  now?: number;
  /** Its calls below the line (Ctrl+O while children run). */
  expanded: boolean;
  /** Whether the line says that Ctrl+O expands it. */
  hint?: boolean;
}

/**
 * The lines of one child. Contract: no line is wider than `width`; collapsed, exactly one line;
 * expanded, that line and at most `EXPANDED_CALLS` calls (and a line saying how many are above).
 */
export function subagent_lines(view: SubagentView, input: SubagentLinesInput): string[] {
  const { palette, width, now } = input;
  const count = `${view.tool_count} tool${view.tool_count === 1 ? '' : 's'}`;
  const running = now !== undefined && view.ended === undefined;
  const doing = running
    ? view.current === null
      ? 'thinking'
      : tool_subject(view.current.tool, view.current.args)
    : subagent_outcome(view);
  const clock =
    view.ended !== undefined
      ? ` · ${format_duration(view.ended.duration_ms)}`
      : now !== undefined
        ? ` · ${format_duration(Math.max(0, now - view.started_at))}`
        : '';
  const hint = input.hint === true && !input.expanded ? ' · Ctrl+O' : '';
  const head = `${view.subagent_type}: ${view.description}`;
  const tail = ` · ${doing} · ${count}${clock}${hint}`;
  // the tail (what it does, its count and clock) is kept whole; the description gives way first
  const room = width - 4;
  const head_room = Math.max(12, room - tail.length);
  const line = fit(`${fit(head, head_room)}${tail}`, room);
  const cut = line.indexOf(' · ');
  const paint = running ? palette.cyan : view.ended?.ok ? palette.green : palette.yellow;
  const shown =
    cut === -1
      ? palette.bold(line)
      : `${palette.bold(line.slice(0, cut))}${palette.dim(line.slice(cut))}`;
  const lines = [`  ${paint('⎿')} ${shown}`];
  if (!input.expanded) return lines;
  const calls = view.calls.slice(-EXPANDED_CALLS);
  const above = view.tool_count - calls.length;
  if (above > 0) lines.push(palette.dim(fit(`      … ${above} earlier`, width)));
  for (const call of calls) {
    lines.push(palette.dim(fit(`      → ${tool_subject(call.tool, call.args)}`, width)));
  }
  return lines;
}

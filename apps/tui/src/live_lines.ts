/**
 * The live region's lines: the answer's tail being written, reasoning, running tools with a
 * spinner, follow-ups waiting in the queue. Kept under a height the screen gives, so the region
 * never grows taller than the terminal (ink would then clear the whole screen at every frame,
 * scrollback included): when it would, its top is cut and a line says how much is above.
 */
import { render_markdown, wrap_lines } from './markdown_lines.js';
import type { Palette } from './palette.js';
import type { TuiState } from './state_types.js';
import { subagent_lines } from './subagent_lines.js';
import { fit, format_duration } from './text_fit.js';
import { tool_subject } from './tool_summary.js';

/** Spinner frames; the screen picks one by time. */
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** What the live region is drawn from. */
export interface LiveInput {
  state: TuiState;
  palette: Palette;
  width: number;
  /** The most lines the region may take. */
  max_lines: number;
  now: number;
}

const COLLAPSED_REASONING_LINES = 3;

/**
 * The markdown of the answer's tail, kept from the last frame: the spinner's ticks and the
 * person's keystrokes redraw the live region with the same tail, which is then not parsed again.
 */
let last_tail: { text: string; width: number; palette: Palette; lines: string[] } | null = null;

function tail_lines(text: string, width: number, palette: Palette): string[] {
  if (last_tail?.text === text && last_tail.width === width && last_tail.palette === palette) {
    return last_tail.lines;
  }
  const lines = render_markdown(text, { width, palette });
  last_tail = { text, width, palette, lines };
  return lines;
}

/**
 * Whether the live region shows a clock or a spinner (a tool running, or a turn that has shown
 * nothing yet): only then does it need redrawing as time passes.
 */
export function live_ticks(state: TuiState): boolean {
  const turn = state.turn;
  if (turn === null) return false;
  return turn.tools.length > 0 || (turn.text.trim() === '' && state.permissions.length === 0);
}

function spinner(now: number): string {
  return SPINNER[Math.floor(now / 80) % SPINNER.length]!;
}

/** The task list as a checklist, while any item is still open; nothing once all are done. */
function todo_lines(state: TuiState, palette: Palette, width: number): string[] {
  const { todos } = state;
  if (todos.length === 0 || todos.every((item) => item.status === 'completed')) return [];
  const done = todos.filter((item) => item.status === 'completed').length;
  const lines = [palette.dim(`Tasks ${done}/${todos.length}`)];
  for (const item of todos) {
    const text = fit(item.content, width - 4);
    if (item.status === 'completed') lines.push(palette.dim(`  ✔ ${text}`));
    else if (item.status === 'in_progress')
      lines.push(`  ${palette.cyan('▸')} ${palette.bold(text)}`);
    else lines.push(`  ○ ${text}`);
  }
  return lines;
}

/** The live region's lines, at most `max_lines` of them (at least 1 when there is anything). */
export function live_lines(input: LiveInput): string[] {
  const { state, palette, width, now } = input;
  const turn = state.turn;
  const head: string[] = [];
  const body: string[] = [];
  const foot: string[] = [];
  if (turn !== null) {
    if (turn.reasoning.trim() !== '') {
      const lines = wrap_lines(turn.reasoning.trim(), width - 2);
      const shown = state.reasoning_expanded ? lines : lines.slice(-COLLAPSED_REASONING_LINES);
      head.push(...shown.map((line) => palette.dim(palette.italic(`∴ ${line}`))));
    }
    if (turn.text.trim() !== '') body.push(...tail_lines(turn.text, width, palette));
    for (const tool of turn.tools) {
      // a call waiting for approval has no clock: its time starts when it runs
      if (state.permissions.some((request) => request.tool_call_id === tool.tool_call_id)) {
        const subject = fit(tool_subject(tool.name, tool.args), width - 30);
        foot.push(`${palette.yellow('?')} ${subject} ${palette.dim('· waiting for your answer')}`);
        continue;
      }
      const clock = format_duration(now - tool.started_at);
      const subject = fit(tool_subject(tool.name, tool.args), width - 5 - clock.length);
      foot.push(`${palette.cyan(spinner(now))} ${subject} ${palette.dim(clock)}`);
      const child = turn.subagents.find((view) => view.tool_call_id === tool.tool_call_id);
      if (child !== undefined) {
        const first = turn.subagents[0] === child;
        foot.push(
          ...subagent_lines(child, {
            palette,
            width,
            now,
            expanded: state.subagents_expanded,
            hint: first,
          }),
        );
      }
    }
    const waiting_for_permission = state.permissions.length > 0;
    if (turn.tools.length === 0 && turn.text.trim() === '' && !waiting_for_permission) {
      const clock = format_duration(now - turn.started_at);
      const what = turn.reasoning.trim() === '' ? 'thinking' : 'reasoning';
      foot.push(
        `${palette.cyan(spinner(now))} ${palette.dim(`${what}… ${clock} · Esc to interrupt`)}`,
      );
    }
  }
  foot.push(...todo_lines(state, palette, width));
  for (const entry of state.steering) {
    foot.push(palette.dim(fit(`↳ steering: ${entry.replace(/\s+/g, ' ')}`, width)));
  }
  for (const entry of state.queued) {
    foot.push(palette.dim(fit(`⧗ queued: ${entry.text.replace(/\s+/g, ' ')}`, width)));
  }
  const room = Math.max(1, input.max_lines);
  let lines = [...head, ...body, ...foot];
  if (lines.length > room) {
    // Cut the top of the answer (and reasoning): the bottom is what is being written.
    const upper = [...head, ...body];
    const keep = Math.max(0, room - 1 - foot.length);
    const hidden = upper.length - keep;
    const note = palette.dim(
      fit(`… ${hidden} more line${hidden === 1 ? '' : 's'} above (all shown when finished)`, width),
    );
    lines = [note, ...upper.slice(upper.length - keep), ...foot].slice(-room);
  }
  return lines;
}

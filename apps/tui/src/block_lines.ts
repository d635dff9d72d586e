/**
 * The terminal lines of one finished block, wrapped to a width. Pure: the screen puts these
 * lines into `<Static>` once; tests read them directly.
 */

import string_width from 'string-width';
import { highlight_code } from './highlight.js';
import { render_markdown, wrap_lines } from './markdown_lines.js';
import type { Palette } from './palette.js';
import type { Block, ToolView } from './state_types.js';
import { subagent_lines } from './subagent_lines.js';
import { first_line, fit, format_duration } from './text_fit.js';
import { tool_outcome, tool_subject } from './tool_summary.js';

/**
 * Where the files attached with `@path` start in a prompt: `ATTACHMENT_MARK` of `@lich/agent`
 * (spelled here so the TUI bundle does not load the agent; a test holds them equal).
 */
export const ATTACHMENT_MARK = '\n\n<file path="';

/** The glyph and colour of a tool line, by outcome. */
function tool_mark(tool: ToolView, palette: Palette): string {
  if (tool.interrupted) return palette.yellow('⊘');
  return tool.ok ? palette.green('✓') : palette.red('✗');
}

/** One finished tool call: `✓ read_file a.ts · 12ms · 40 lines`, and the error below a failure. */
export function tool_lines(tool: ToolView, palette: Palette, width: number): string[] {
  const subject = tool_subject(tool.name, tool.args);
  const parts: string[] = [];
  if (tool.duration_ms !== undefined) parts.push(format_duration(tool.duration_ms));
  if (tool.interrupted) parts.push('interrupted');
  else if (tool.ok !== undefined) {
    const outcome = tool_outcome(tool.name, tool.ok, tool.output ?? '', tool.error);
    if (outcome !== '' && tool.ok) parts.push(outcome);
  }
  if (tool.name === 'edit_file' && tool.ok) parts.push('Ctrl+O: diff');
  const { head, tail } = fit_tool_line(subject, parts, width - 2);
  const lines = [`${tool_mark(tool, palette)} ${palette.bold(head)}${palette.dim(tail)}`];
  if (tool.subagent !== undefined) {
    // the child, folded to one line; Ctrl+O prints its calls and report
    lines.push(...subagent_lines(tool.subagent, { palette, width, expanded: false, hint: true }));
    return lines;
  }
  if (tool.ok === false && !tool.interrupted) {
    const why = tool_outcome(tool.name, false, tool.output ?? '', tool.error);
    lines.push(palette.red(`  └ ${fit(why, width - 4)}`));
  }
  return lines;
}

/**
 * A tool line's two halves within `room` columns (C22): the tool's name and target are kept, and
 * the tail (`· 12ms · summary`) is shortened first; only when even its first part does not fit
 * beside the whole target is the target cut (never below 8 columns).
 */
export function fit_tool_line(
  subject: string,
  parts: readonly string[],
  room: number,
): { head: string; tail: string } {
  const tail = parts.length === 0 ? '' : ` · ${parts.join(' · ')}`;
  if (string_width(subject) + string_width(tail) <= room) return { head: subject, tail };
  const first = parts.length === 0 ? '' : ` · ${parts[0]}`;
  const left = room - string_width(subject);
  if (left >= string_width(first)) return { head: subject, tail: fit(tail, left) };
  const head_room = Math.max(8, room - string_width(first));
  return { head: fit(subject, head_room), tail: fit(first, Math.max(0, room - head_room)) };
}

function user_lines(block: Extract<Block, { kind: 'user' }>, palette: Palette, width: number) {
  const mark = block.via === 'steer' ? '↳' : '›';
  const note =
    block.via === 'steer' ? ' (steering)' : block.via === 'follow_up' ? ' (follow-up)' : '';
  // files attached with `@path` follow the text: shown by name, not in full
  const cut = block.text.indexOf(ATTACHMENT_MARK);
  const text = cut === -1 ? block.text : block.text.slice(0, cut);
  const files =
    cut === -1
      ? []
      : [...block.text.slice(cut).matchAll(/^<file path="([^"]*)">$/gm)].map((match) => match[1]);
  const lines = wrap_lines(text, width - 2, true);
  const shown = lines.map((line, index) => {
    const prefix = index === 0 ? palette.cyan(palette.bold(mark)) : ' ';
    const suffix = index === lines.length - 1 ? palette.dim(note) : '';
    return `${prefix} ${palette.bold(line)}${suffix}`;
  });
  for (const file of files) shown.push(palette.dim(`  + ${file}`));
  return shown;
}

function reasoning_lines(text: string, expanded: boolean, palette: Palette, width: number) {
  const style = (line: string) => palette.dim(palette.italic(line));
  if (expanded) {
    return wrap_lines(text, width - 2).map(
      (line, index) => `${index === 0 ? style('∴') : ' '} ${style(line)}`,
    );
  }
  const count = text.split('\n').length;
  const more = count > 1 ? ` (+${count - 1} lines, Ctrl+O)` : '';
  return [style(`∴ ${fit(first_line(text), width - 2 - more.length)}${more}`)];
}

const STOP_WORDS: Record<string, string> = {
  aborted: 'interrupted',
  max_turns: 'stopped: the turn budget is used up',
  budget: 'stopped: a spending limit was reached',
  refusal: 'the provider refused to answer',
  error: 'the model call failed',
  final: 'done',
};

/**
 * The lines of `block` at `width` columns. Contract: no line is wider than `width` (at least 20
 * is assumed), and an empty block gives no lines.
 */
export function block_lines(block: Block, palette: Palette, width: number): string[] {
  switch (block.kind) {
    case 'user':
      return user_lines(block, palette, width);
    case 'answer':
      return render_markdown(block.text, { width, palette });
    case 'reasoning':
      return reasoning_lines(block.text, block.expanded, palette, width);
    case 'tool':
      return tool_lines(block.tool, palette, width);
    case 'notice': {
      const mark = { info: palette.dim('·'), warn: palette.yellow('!'), error: palette.red('✗') }[
        block.level
      ];
      const paint = { info: palette.dim, warn: palette.yellow, error: palette.red }[block.level];
      return wrap_lines(block.text, width - 2).map(
        (line, index) => `${index === 0 ? mark : ' '} ${paint(line)}`,
      );
    }
    case 'checkpoint':
      return [
        palette.dim(fit(`↺ checkpoint: prompt ${block.prompt} can be rewound (/rewind)`, width)),
      ];
    case 'command': {
      const head = palette.dim(fit(`/${block.name}${block.args ? ` ${block.args}` : ''}`, width));
      const paint = block.ok ? (line: string) => line : palette.red;
      const body = block.output === '' ? [] : wrap_lines(block.output, width - 2, true);
      return [head, ...body.map((line) => `  ${paint(line)}`)];
    }
    case 'turn_end': {
      const text = STOP_WORDS[block.stop_reason] ?? block.stop_reason;
      const error = block.error ? `: ${block.error}` : '';
      const paint = block.stop_reason === 'error' ? palette.red : palette.yellow;
      const mark = block.stop_reason === 'error' ? '✗' : '⊘';
      const hints = (block.hints ?? []).flatMap((hint) =>
        wrap_lines(`  ${hint}`, width).map((line) => palette.dim(line)),
      );
      return [...wrap_lines(`${mark} ${text}${error}`, width).map((line) => paint(line)), ...hints];
    }
    case 'expanded': {
      const body = block.diff
        ? highlight_code(block.text, 'diff', palette).flatMap((line) =>
            wrap_lines(line, width - 2, true),
          )
        : wrap_lines(block.text, width - 2, true);
      return [palette.bold(block.title), ...body.map((line) => `  ${line}`)];
    }
  }
}

/** Whether a blank line goes between `previous` and `block` (none between a run of tool lines). */
export function gap_before(previous: Block | undefined, block: Block): boolean {
  if (previous === undefined) return false;
  const compact = (kind: Block['kind']) =>
    kind === 'tool' || kind === 'notice' || kind === 'checkpoint';
  return !(compact(previous.kind) && compact(block.kind));
}

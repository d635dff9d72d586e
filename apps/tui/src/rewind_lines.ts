/**
 * `/rewind` drawn in the input's place: the prompts to choose from (↺ marks those whose files can
 * be rewound), then what to restore, then what to do about files someone else changed.
 */
import type { RewindPoint } from '@lich/agent';
import type { Palette } from './palette.js';
import { SCOPE_WORDS } from './rewind_state.js';
import type { RewindView } from './state_types.js';
import { fit } from './text_fit.js';

function point_line(point: RewindPoint, width: number): string {
  const mark = point.files ? '↺' : ' ';
  const when = point.at.replace('T', ' ').slice(11, 16);
  const changed =
    point.changes.length === 0
      ? 'no file changes'
      : `${point.changes.length} file${point.changes.length === 1 ? '' : 's'} +${point.added_lines} −${point.removed_lines}`;
  const head = `${mark} ${String(point.prompt).padStart(3)}  ${when}  `;
  const tail = `  ${changed}`;
  const room = Math.max(8, width - head.length - tail.length);
  return `${head}${fit(point.input.replace(/\s+/g, ' '), room).padEnd(room)}${tail}`;
}

/** The rewind picker's lines, at most `max_rows` of them. */
export function rewind_lines(
  view: RewindView,
  palette: Palette,
  width: number,
  max_rows: number,
): string[] {
  if (view.working) return [palette.dim(fit('rewinding…', width))];
  if (view.step === 'conflicts') {
    const shown = view.conflicts.slice(0, Math.max(1, max_rows - 3));
    const more = view.conflicts.length - shown.length;
    return [
      `${palette.yellow('!')} ${palette.bold(fit('Changed by someone else since the agent left them:', width - 2))}`,
      ...shown.map((path) => `    ${fit(path, width - 4)}`),
      ...(more > 0 ? [palette.dim(`    … and ${more} more`)] : []),
      `  ${palette.bold('o')} overwrite them (a redo brings them back)${palette.dim(' · ')}${palette.bold('k')} keep them as they are${palette.dim(' · ')}${palette.bold('Esc')} cancel`,
    ];
  }
  const point = view.points[view.selected];
  if (view.step === 'scope' && point !== undefined) {
    const head = palette.bold(
      fit(`Rewind to before prompt ${point.prompt} — restore what? ↑/↓ · Enter · Esc back`, width),
    );
    const rows = view.scopes.map((scope, index) =>
      index === view.scope
        ? `${palette.cyan('›')} ${palette.inverse(fit(SCOPE_WORDS[scope], width - 2))}`
        : `  ${fit(SCOPE_WORDS[scope], width - 2)}`,
    );
    if (rows.length === 0) rows.push(palette.dim('  nothing of this prompt can be rewound'));
    return [head, ...rows];
  }
  const head = palette.bold(
    fit('Rewind to before which prompt? ↺ files can be rewound · ↑/↓ · Enter · Esc cancel', width),
  );
  const room = Math.max(1, max_rows - 1);
  const start = Math.min(
    Math.max(0, view.selected - Math.floor(room / 2)),
    Math.max(0, view.points.length - room),
  );
  const rows = view.points.slice(start, start + room).map((entry, offset) => {
    const line = point_line(entry, width - 2);
    return start + offset === view.selected
      ? `${palette.cyan('›')} ${palette.inverse(fit(line, width - 2))}`
      : `  ${fit(line, width - 2)}`;
  });
  return [head, ...rows];
}

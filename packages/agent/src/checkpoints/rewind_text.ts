import type {
  RewindFiles,
  RewindOutcome,
  RewindPoint,
  RewindRequest,
  RewindScope,
} from './rewind_types.js';

const ACTION_WORDS = {
  update: 'restored',
  create: 're-created',
  delete: 'removed',
  mode: 'mode',
} as const;

const SKIP_WORDS = {
  not_kept: 'not kept (over the size cap): a rewind cannot bring it back',
  excluded: 'left out of checkpoints',
  conflict: 'changed by someone else, kept as it is',
  not_empty: 'a folder that still holds files left out of checkpoints',
  failed: 'could not be restored',
} as const;

/** At most this many paths per list in a summary. */
const LIST_LIMIT = 12;

function listed(lines: string[]): string[] {
  if (lines.length <= LIST_LIMIT) return lines;
  return [...lines.slice(0, LIST_LIMIT), `  … and ${lines.length - LIST_LIMIT} more`];
}

function file_lines(files: RewindFiles, status: RewindOutcome['status']): string[] {
  const lines: string[] = [];
  const restored = files.restored.filter((path) => path.kind !== 'dir' || path.action === 'mode');
  if (status === 'conflicts') {
    lines.push(
      `${files.conflicts.length === 1 ? 'This file was' : 'These files were'} changed by someone else since the agent left ${files.conflicts.length === 1 ? 'it' : 'them'}:`,
      ...listed(files.conflicts.map((path) => `  ${path}`)),
      'Nothing was changed. Rewind anyway with --overwrite (a redo brings their version back), or with --keep to leave these as they are.',
    );
    return lines;
  }
  if (restored.length === 0) lines.push('Files: nothing to change.');
  else {
    lines.push(`Files (${restored.length}):`);
    lines.push(
      ...listed(restored.map((path) => `  ${ACTION_WORDS[path.action].padEnd(10)} ${path.path}`)),
    );
  }
  const skipped = files.skipped.filter((skip) => skip.reason !== 'excluded');
  if (skipped.length > 0) {
    lines.push('Left as they are:');
    lines.push(
      ...listed(
        skipped.map(
          (skip) =>
            `  ${skip.path}: ${SKIP_WORDS[skip.reason]}${skip.message ? ` (${skip.message})` : ''}`,
        ),
      ),
    );
  }
  if (files.not_restored.length > 0) {
    lines.push(
      `Not in checkpoints, not restored: ${files.not_restored.slice(0, 5).join(', ')}${files.not_restored.length > 5 ? ', …' : ''} (reinstall or rebuild to bring them back).`,
    );
  }
  return lines;
}

/** A rewind's outcome in a few lines for a person. */
export function rewind_summary(
  status: RewindOutcome['status'],
  prompt: number | undefined,
  files?: RewindFiles,
  conversation?: { removed: number; restored: number },
  notes: readonly string[] = [],
  how_to_redo = '/rewind --redo',
): string {
  const what = prompt === undefined ? 'the last rewind' : `before prompt ${prompt}`;
  const head = {
    rewound: prompt === undefined ? 'Redone: the last rewind was undone.' : `Rewound to ${what}.`,
    planned:
      prompt === undefined
        ? 'A redo would undo the last rewind:'
        : `Rewinding to ${what} would do this:`,
    conflicts: `Not rewound to ${what}.`,
    nothing: `Nothing to rewind ${what}.`,
  }[status];
  const lines = [head];
  if (files !== undefined) lines.push(...file_lines(files, status));
  if (conversation !== undefined && status !== 'conflicts') {
    if (conversation.removed > 0) {
      const plural = conversation.removed === 1 ? '' : 's';
      const verb = status === 'planned' ? 'would be removed' : 'removed';
      lines.push(`Conversation: ${conversation.removed} message${plural} ${verb}.`);
    } else if (conversation.restored > 0) {
      lines.push(
        `Conversation: ${conversation.restored} message${conversation.restored === 1 ? '' : 's'} back.`,
      );
    }
  }
  lines.push(...notes);
  if (status === 'rewound' && prompt !== undefined) lines.push(`Undo it with ${how_to_redo}.`);
  return lines.join('\n');
}

function short_time(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

/** The prompts of a session as `/rewind` lists them: number, time, files changed, +/− lines. */
export function format_rewind_points(points: readonly RewindPoint[], command = '/rewind'): string {
  if (points.length === 0) return 'This session has no prompts to rewind yet.';
  const lines = points.map((point) => {
    const changed =
      point.changes.length === 0
        ? 'no file changes'
        : `${point.changes.length} file${point.changes.length === 1 ? '' : 's'} +${point.added_lines} −${point.removed_lines}`;
    const marks = `${point.files ? '↺' : ' '}`;
    const input = point.input.length > 60 ? `${point.input.slice(0, 59)}…` : point.input;
    return `${marks} ${String(point.prompt).padStart(3)}  ${short_time(point.at)}  ${input.padEnd(40)}  ${changed}`;
  });
  return [
    'Prompts of this session (↺: its files can be rewound):',
    ...lines,
    `${command} <n> rewinds the conversation and the files to before prompt n; --files or --chat for one of them, --dry-run to see first, --redo to undo a rewind.`,
  ].join('\n');
}

/** The words `/rewind` and `lich rewind` take. */
export interface ParsedRewindArgs {
  /** No prompt and no `--redo`: list the prompts. */
  list: boolean;
  request: RewindRequest;
}

/**
 * Parses `[<n>] [--files|--chat] [--dry-run] [--redo] [--overwrite|--keep]`. Throws an `Error`
 * whose message says what is wrong.
 */
export function parse_rewind_args(args: string): ParsedRewindArgs {
  const request: RewindRequest = {};
  let scope: RewindScope | undefined;
  for (const word of args.split(/\s+/).filter((part) => part !== '')) {
    if (/^#?\d+$/.test(word)) {
      if (request.prompt !== undefined) throw new Error('give one prompt number');
      request.prompt = Number(word.replace('#', ''));
    } else if (word === '--files' || word === '--chat' || word === '--conversation') {
      const next: RewindScope = word === '--files' ? 'files' : 'conversation';
      if (scope !== undefined && scope !== next)
        throw new Error('--files and --chat cannot go together');
      scope = next;
    } else if (word === '--dry-run') request.dry_run = true;
    else if (word === '--redo') request.redo = true;
    else if (word === '--overwrite' || word === '--force') request.on_conflict = 'overwrite';
    else if (word === '--keep') request.on_conflict = 'keep';
    else throw new Error(`unknown word '${word}' (see /rewind --help)`);
  }
  if (scope !== undefined) request.scope = scope;
  return { list: request.prompt === undefined && request.redo !== true, request };
}

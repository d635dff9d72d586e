import { ALWAYS_EXCLUDED, type ExcludeRules } from './exclude_rules.js';
import type { FileKind } from './file_changes.js';
import type { EntryKind, TreeReader } from './tree.js';
import { diff_trees, type FlatEntry } from './tree_diff.js';

/** What a restore does to one path. */
export type RestoreActionKind = 'create' | 'update' | 'delete' | 'mode';

/** One step of a restore. */
export interface RestoreAction {
  /** `/`-separated, relative to the work folder. */
  readonly path: string;
  readonly action: RestoreActionKind;
  /** What the path is after the step (before it, for `delete`). */
  readonly kind: FileKind;
  /** What is there now, and what the checkpoint had. */
  readonly current: FlatEntry | undefined;
  readonly target: FlatEntry | undefined;
}

/** Why a restore left a path as it is. */
export type SkipReason =
  | 'not_kept' // the checkpoint recorded it by name only (over the size cap), or what is there now was not kept: a rewind could not bring it back
  | 'excluded' // the exclude rules leave it out now
  | 'conflict' // changed by someone else, and the caller chose to keep it
  | 'not_empty' // a folder to remove still holds excluded or not-kept files
  | 'failed'; // the file system refused (the message says why)

/** A path a restore left as it is. */
export interface SkippedPath {
  readonly path: string;
  readonly reason: SkipReason;
  readonly message?: string;
}

/** A restore worked out but not yet done. */
export interface RestorePlan {
  readonly actions: RestoreAction[];
  /** Paths the restore would change that someone else changed since (see `foreign`). */
  readonly conflicts: string[];
  readonly skipped: SkippedPath[];
}

const KIND_NAMES: Record<EntryKind, FileKind> = { f: 'file', l: 'link', d: 'dir', x: 'not_kept' };

/** True when no segment of `path`, nor the path up to it, is excluded by `rules` or always left out. */
export function is_restorable_path(rules: ExcludeRules, path: string): boolean {
  const segments = path.split('/');
  let prefix = '';
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i]!;
    prefix = prefix === '' ? name : `${prefix}/${name}`;
    if (ALWAYS_EXCLUDED.includes(name)) return false;
    if (rules.is_excluded(prefix, name, i < segments.length - 1)) return false;
  }
  return true;
}

function in_foreign(foreign: ReadonlySet<string>, path: string): boolean {
  return foreign.has(path);
}

/**
 * Works out how to turn the work folder from tree `current` into tree `target`. A path in
 * `foreign` (changed by someone other than the agent) that the restore would change is a conflict.
 * Files recorded by name only are never written, nor is what is there now removed when it was not
 * kept: a rewind could not bring it back.
 */
export function plan_restore(options: {
  trees: TreeReader;
  rules: ExcludeRules;
  current: string;
  target: string;
  foreign: ReadonlySet<string>;
}): RestorePlan {
  const actions: RestoreAction[] = [];
  const conflicts: string[] = [];
  const skipped: SkippedPath[] = [];
  for (const { path, before, after } of diff_trees(
    options.trees,
    options.current,
    options.target,
  )) {
    if (!is_restorable_path(options.rules, path)) {
      skipped.push({ path, reason: 'excluded' });
      continue;
    }
    if (after?.kind === 'x' || before?.kind === 'x') {
      skipped.push({ path, reason: 'not_kept' });
      continue;
    }
    let action: RestoreActionKind;
    if (after === undefined) action = 'delete';
    else if (before === undefined) action = 'create';
    else if (before.kind === after.kind && before.ref === after.ref && before.kind !== 'l')
      action = 'mode';
    else action = 'update';
    const kind = KIND_NAMES[(after ?? before)!.kind];
    if (in_foreign(options.foreign, path)) conflicts.push(path);
    actions.push({ path, action, kind, current: before, target: after });
  }
  return { actions, conflicts, skipped };
}

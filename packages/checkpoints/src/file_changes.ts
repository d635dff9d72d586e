import { count_line_changes } from './line_counts.js';
import type { ObjectStore } from './object_store.js';
import type { EntryKind, TreeReader } from './tree.js';
import { diff_trees, type FlatEntry } from './tree_diff.js';

/** How a path changed between two checkpoints. */
export type FileChangeStatus = 'added' | 'deleted' | 'modified' | 'renamed' | 'mode';

/** What a path is: a file, a symbolic link, a folder, or a file recorded by name only. */
export type FileKind = 'file' | 'link' | 'dir' | 'not_kept';

/** One changed path, for a person to read. */
export interface FileChange {
  /** `/`-separated, relative to the work folder. */
  readonly path: string;
  readonly status: FileChangeStatus;
  readonly kind: FileKind;
  /** For `renamed`: the old path. */
  readonly from?: string;
  /** Lines added and removed, for text files. */
  readonly added_lines?: number;
  readonly removed_lines?: number;
  /** True when either side is binary (no line counts). */
  readonly binary?: boolean;
  /** Permission bits before and after, when they changed. */
  readonly mode_before?: number;
  readonly mode_after?: number;
}

/** Files larger than this get no line counts. */
const LINE_COUNT_LIMIT = 4 * 1024 * 1024;

const KIND_NAMES: Record<EntryKind, FileKind> = { f: 'file', l: 'link', d: 'dir', x: 'not_kept' };

function is_binary(data: Buffer): boolean {
  return data.subarray(0, 8000).includes(0);
}

interface Texts {
  read(hash: string): Buffer | undefined;
}

function line_counts(texts: Texts, before: FlatEntry | undefined, after: FlatEntry | undefined) {
  const side = (entry: FlatEntry | undefined): Buffer | null => {
    if (entry === undefined) return Buffer.alloc(0);
    if (entry.kind !== 'f' || entry.size > LINE_COUNT_LIMIT) return null;
    return texts.read(entry.ref) ?? null;
  };
  const a = side(before);
  const b = side(after);
  if (a === null || b === null) return {};
  if (is_binary(a) || is_binary(b)) return { binary: true };
  const counts = count_line_changes(a.toString('utf8'), b.toString('utf8'));
  return { added_lines: counts.added, removed_lines: counts.removed };
}

/**
 * The changes from tree `before` to tree `after`, one per file or link (folders only when their
 * mode changed), in path order. A file deleted in one place and added with the same content in
 * another is one `renamed` change. With `lines`, text files get `added_lines` / `removed_lines`.
 *
 * Contract: throws a `CheckpointError` (`corrupt`) when a tree is missing; a missing content only
 * loses its line counts.
 */
export function summarize_changes(
  objects: ObjectStore,
  trees: TreeReader,
  before: string | undefined,
  after: string | undefined,
  options: { lines?: boolean } = {},
): FileChange[] {
  const differences = diff_trees(trees, before, after).filter(
    (d) => !(d.before?.kind === 'd' && d.after?.kind === 'd' && d.before.mode === d.after.mode),
  );
  const texts: Texts = {
    read(hash) {
      try {
        return objects.read(hash);
      } catch {
        return undefined;
      }
    },
  };
  // a deleted file whose content reappears elsewhere was moved
  const deleted_by_hash = new Map<string, string[]>();
  for (const d of differences) {
    if (d.before?.kind === 'f' && d.after === undefined) {
      const paths = deleted_by_hash.get(d.before.ref) ?? [];
      paths.push(d.path);
      deleted_by_hash.set(d.before.ref, paths);
    }
  }
  const moved_from = new Map<string, string>();
  const moved = new Set<string>();
  for (const d of differences) {
    if (d.after?.kind !== 'f' || d.before !== undefined) continue;
    const candidates = deleted_by_hash.get(d.after.ref);
    const from = candidates?.shift();
    if (from !== undefined) {
      moved_from.set(d.path, from);
      moved.add(from);
    }
  }
  const out: FileChange[] = [];
  for (const { path, before: b, after: a } of differences) {
    if (moved.has(path)) continue;
    const kind = KIND_NAMES[(a ?? b)!.kind];
    if (kind === 'dir' && (a === undefined || b === undefined)) continue;
    const from = moved_from.get(path);
    if (from !== undefined) {
      out.push({ path, status: 'renamed', kind, from, added_lines: 0, removed_lines: 0 });
      continue;
    }
    let status: FileChangeStatus;
    if (b === undefined) status = 'added';
    else if (a === undefined) status = 'deleted';
    else if (a.kind === b.kind && a.ref === b.ref && a.size === b.size) status = 'mode';
    else status = 'modified';
    const mode =
      a !== undefined && b !== undefined && a.mode !== b.mode && a.kind !== 'l' && b.kind !== 'l'
        ? { mode_before: b.mode, mode_after: a.mode }
        : {};
    const lines =
      options.lines === true && status !== 'mode' && kind !== 'dir' ? line_counts(texts, b, a) : {};
    out.push({ path, status, kind, ...mode, ...lines });
  }
  return out;
}

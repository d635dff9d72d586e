import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { error_text, system_code } from './errors.js';
import { RESTORE_TMP_PREFIX } from './exclude_rules.js';
import type { ObjectStore } from './object_store.js';
import type { RestoreAction, SkippedPath } from './restore_plan.js';

function depth(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}

/**
 * Carries out `actions` in the work folder: removals deepest first, then creations and updates
 * parents first, then folder modes deepest first (a read-only folder is made so last). A file or
 * link is written beside its final name and renamed over it, so a reader sees the old or the new,
 * never a part. Nothing is written through a symbolic link: every parent is checked to be a real
 * folder inside the work folder first.
 *
 * Contract: never throws for one path; a path the file system refuses is returned as skipped
 * (`failed`, or `not_empty` for a folder that still holds excluded files). Contents are read from
 * `objects` and checked against their hash; a damaged one is a failed path, never written.
 */
export function apply_restore(
  work_dir: string,
  objects: ObjectStore,
  actions: readonly RestoreAction[],
): SkippedPath[] {
  const skipped: SkippedPath[] = [];
  const fail = (path: string, error: unknown) => {
    skipped.push({ path, reason: 'failed', message: error_text(error) });
  };
  const real_dirs = new Set<string>(['']);
  // folders without write permission for their owner, opened up while the restore runs
  const opened: { path: string; mode: number }[] = [];
  const parent_is_real = (path: string): boolean => {
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    if (real_dirs.has(parent)) return true;
    if (!parent_is_real(parent)) return false;
    const parent_path = join(work_dir, parent);
    const info = lstatSync(parent_path, { throwIfNoEntry: false });
    if (info === undefined || !info.isDirectory()) return false;
    if ((info.mode & 0o300) !== 0o300) {
      chmodSync(parent_path, (info.mode & 0o7777) | 0o700);
      opened.push({ path: parent_path, mode: info.mode & 0o7777 });
    }
    real_dirs.add(parent);
    return true;
  };

  const removals = actions
    .filter(
      (a) => a.action === 'delete' || (a.action === 'update' && a.current?.kind !== a.target?.kind),
    )
    .sort((a, b) => depth(b.path) - depth(a.path) || (a.path < b.path ? 1 : -1));
  const failed = new Set<string>();
  for (const action of removals) {
    const path = join(work_dir, action.path);
    try {
      if (!parent_is_real(action.path)) throw new Error('a parent is no longer a folder');
      if (action.current?.kind === 'd') rmdirSync(path);
      else unlinkSync(path);
    } catch (error) {
      const code = system_code(error);
      if (code === 'ENOENT') continue;
      failed.add(action.path);
      if (code === 'ENOTEMPTY' || code === 'EEXIST')
        skipped.push({ path: action.path, reason: 'not_empty' });
      else fail(action.path, error);
    }
  }

  const writes = actions
    .filter((a) => a.action !== 'delete' && !failed.has(a.path))
    .sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
  const dir_modes: { path: string; mode: number }[] = [];
  for (const action of writes) {
    const target = action.target!;
    const path = join(work_dir, action.path);
    try {
      if (!parent_is_real(action.path)) throw new Error('a parent is not a folder');
      if (target.kind === 'd') {
        if (action.action !== 'mode') {
          mkdirSync(path, { mode: 0o700 });
          real_dirs.add(action.path);
        }
        dir_modes.push({ path, mode: target.mode });
      } else if (action.action === 'mode') {
        chmodSync(path, target.mode);
      } else {
        const tmp = join(dirname(path), `${RESTORE_TMP_PREFIX}${randomBytes(6).toString('hex')}`);
        try {
          if (target.kind === 'l') {
            symlinkSync(target.ref, tmp);
          } else {
            writeFileSync(tmp, objects.read(target.ref), { flag: 'wx', mode: 0o600 });
            chmodSync(tmp, target.mode);
          }
          renameSync(tmp, path);
        } catch (error) {
          rmSync(tmp, { force: true });
          throw error;
        }
      }
    } catch (error) {
      fail(action.path, error);
    }
  }
  for (const { path, mode } of [...opened.reverse(), ...dir_modes.reverse()]) {
    try {
      chmodSync(path, mode);
    } catch (error) {
      fail(path.slice(work_dir.length + 1), error);
    }
  }
  return skipped;
}

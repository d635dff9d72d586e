import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folders a project's files are looked for in: `work_dir` and its parents up to the
 * repository root (the nearest folder holding `.git`), nearest first. Outside a repository, only
 * `work_dir`. Never throws.
 */
export async function project_folders(work_dir: string): Promise<string[]> {
  const start = resolve(work_dir);
  const folders: string[] = [];
  let folder = start;
  for (;;) {
    folders.push(folder);
    if (await exists(join(folder, '.git'))) return folders;
    const parent = dirname(folder);
    if (parent === folder) return [start];
    folder = parent;
  }
}

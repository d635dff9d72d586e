import { isAbsolute, relative, sep } from 'node:path';

/**
 * Where `path` lies in `folder`: its path relative to `folder` (`''` for the folder itself), or
 * null when it lies outside. Both are resolved against the current directory, as
 * `path.relative` does, and compared as written (links are not followed: see
 * `resolve_in_work_dir` for a path a tool may touch).
 *
 * Contract: outside is `..`, `../…` or another root (a Windows drive); a name that only starts
 * with dots (`..env`, `...`) is inside.
 */
export function path_inside(folder: string, path: string): string | null {
  const inside = relative(folder, path);
  return is_inside(inside) ? inside : null;
}

/** Whether a path `relative` gave stays inside its folder (see `path_inside`). */
export function is_inside(relative_path: string): boolean {
  return (
    relative_path === '' ||
    (relative_path !== '..' && !relative_path.startsWith(`..${sep}`) && !isAbsolute(relative_path))
  );
}

/**
 * The path guard: every path a tool touches is resolved inside the work dir, with symbolic links
 * resolved the way the operating system would follow them. Its metadata calls are synchronous:
 * each takes microseconds on a local disk, where a promise round trip through the thread pool
 * costs tens of them, and a tool call makes several.
 */
import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { is_inside } from './path_inside.js';

/** The longest path the guard accepts, in bytes (Linux's PATH_MAX). */
export const MAX_PATH_BYTES = 4_096;
/** How many symbolic links one path may go through (Linux's limit) before it counts as circular. */
export const MAX_LINK_HOPS = 40;
/** Folders no tool may write into, wherever they appear in a path. */
export const PROTECTED_DIRS: readonly string[] = ['.git', '.lich'];

/** Options of `resolve_in_work_dir`. */
export interface GuardOptions {
  /** The path is about to be written: refuse `.git/`, `.lich/` and the work dir itself. */
  for_write?: boolean;
}

/** A path the guard accepted. */
export interface GuardedPath {
  ok: true;
  /** The real absolute path, every symbolic link resolved. */
  path: string;
  /** `path` relative to the real work dir (`''` for the work dir itself). */
  relative: string;
  /** The work dir's real path. */
  work_dir: string;
  /** Whether something exists at `path`. */
  exists: boolean;
  /**
   * What `lstat` said of `path` on the way, when it exists and is no symbolic link: then it is
   * also what `stat` says, and a caller need not ask again.
   */
  lstat?: Stats;
}

/** What `resolve_in_work_dir` gives: the accepted path, or why it was refused. */
export type GuardResult = GuardedPath | { ok: false; error: string };

/** Thrown by tools (and the safe file helpers) when the guard refuses a path. */
export class PathGuardError extends Error {
  override readonly name = 'PathGuardError';
}

/**
 * Resolves `path` (relative to `work_dir`, or absolute) to its real absolute path inside the
 * work dir.
 *
 * Contract: never throws; a refusal is `{ ok: false, error }` with a message for the model.
 * Refused: a non-string, a NUL byte, more than `MAX_PATH_BYTES` bytes, `..` leading out, an
 * absolute path outside (the sibling-prefix trap `/w/proj-evil` vs `/w/proj` included), a
 * symbolic link anywhere on the way that leads out (followed component by component, so a deep
 * non-existent path under such a link is refused too), more than `MAX_LINK_HOPS` links (a
 * circular link), a link whose target is not valid UTF-8. With `for_write`, also the work dir
 * itself and anything under a `.git` or `.lich` folder. The path need not exist: the real path of
 * its deepest existing ancestor is taken and the rest appended.
 *
 * The answer is true when it is given; a link swapped in afterwards is the business of the code
 * that opens the file (see `write_file_atomic` and `open_in_work_dir`).
 */
export async function resolve_in_work_dir(
  work_dir: string,
  path: string,
  options: GuardOptions = {},
): Promise<GuardResult> {
  return resolve_in_work_dir_sync(work_dir, path, options);
}

/**
 * `resolve_in_work_dir` without the promise: the guard's metadata calls are synchronous anyway,
 * and a tool that opens the file synchronously too (`read_file`) saves the promise round trips.
 * The contract is `resolve_in_work_dir`'s.
 */
export function resolve_in_work_dir_sync(
  work_dir: string,
  path: string,
  options: GuardOptions = {},
): GuardResult {
  const refused = (error: string): GuardResult => ({ ok: false, error });
  if (typeof path !== 'string') return refused(`expected a path as text, got ${typeof path}`);
  if (path.includes('\0')) return refused('the path contains a NUL byte');
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES) {
    return refused(`the path is ${bytes} bytes long; the limit is ${MAX_PATH_BYTES}`);
  }
  let root: string;
  try {
    root = real_work_dir(work_dir);
  } catch (error) {
    return refused(`the work dir ${work_dir} cannot be used: ${error_text(error)}`);
  }
  const shown = path === '' ? '.' : path;

  let lexical: string | undefined;
  if (isAbsolute(path)) {
    // an absolute path may be written against the work dir as configured or as its real path
    for (const base of [resolve(work_dir), root]) {
      const inside = relative(base, resolve(path));
      if (is_inside(inside)) {
        lexical = inside;
        break;
      }
    }
    if (lexical === undefined) return refused(`'${shown}' is outside the work dir ${root}`);
  } else {
    lexical = relative(root, resolve(root, path));
    if (!is_inside(lexical)) return refused(`'${shown}' leads outside the work dir (via '..')`);
  }

  const walked = walk(root, lexical === '' ? [] : lexical.split(sep));
  if (!walked.ok) return refused(`'${shown}': ${walked.error}`);
  const inside = relative_inside(root, walked.path);
  if (!is_inside(inside)) {
    const through =
      walked.last_link === undefined
        ? ''
        : ` through the symbolic link '${relative(root, walked.last_link.from) || walked.last_link.from}' → ${walked.last_link.to}`;
    return refused(`'${shown}' resolves to ${walked.path}${through}, outside the work dir ${root}`);
  }
  if (options.for_write) {
    if (inside === '') return refused(`'${shown}' is the work dir itself, not a file`);
    const parts = inside.split(sep);
    const guarded = parts.find((part) => PROTECTED_DIRS.includes(part.toLowerCase()));
    if (guarded !== undefined) {
      return refused(`'${shown}' is inside ${guarded}/, which tools may not write to`);
    }
  }
  const guarded: GuardedPath = {
    ok: true,
    path: walked.path,
    relative: inside,
    work_dir: root,
    exists: walked.exists,
  };
  if (walked.lstat !== undefined) guarded.lstat = walked.lstat;
  return guarded;
}

/** How long the real path of a work dir is taken as known: a tool call makes several lookups. */
const WORK_DIR_TTL_MS = 1_000;
const real_work_dirs = new Map<string, { real: string; until: number }>();

/**
 * The real path of `work_dir`, looked up again at most every `WORK_DIR_TTL_MS`. Throws what
 * `realpath` throws. A work dir moved meanwhile is still walked at the real path it had, which
 * keeps every path inside the folder the session started in.
 */
export function real_work_dir(work_dir: string): string {
  const now = performance.now();
  const known = real_work_dirs.get(work_dir);
  if (known !== undefined && now < known.until) return known.real;
  const real = realpathSync.native(work_dir);
  if (real_work_dirs.size >= 64) real_work_dirs.clear();
  real_work_dirs.set(work_dir, { real, until: now + WORK_DIR_TTL_MS });
  return real;
}

/** `relative(root, path)` for a normalised `path`, by slicing when it lies under `root`. */
function relative_inside(root: string, path: string): string {
  if (path === root) return '';
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : relative(root, path);
}

type Walked =
  | {
      ok: true;
      path: string;
      exists: boolean;
      last_link?: { from: string; to: string };
      /** The `lstat` of `path` when it exists and is no link. */
      lstat?: Stats;
    }
  | { ok: false; error: string };

/** Follows `parts` from the real directory `start` as the kernel would, one component at a time. */
function walk(start: string, parts: string[]): Walked {
  const pending = [...parts];
  let current = start;
  let missing = false;
  let hops = 0;
  let last_link: { from: string; to: string } | undefined;
  let last_stats: Stats | undefined;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '' || part === '.') continue;
    last_stats = undefined;
    if (part === '..') {
      // `current` is always a real path here, so its parent is the parent the kernel sees
      current = dirname(current);
      continue;
    }
    // `current` is a normal absolute path and `part` one plain name: on POSIX `join` would only
    // put a `/` between them, after scanning both
    const next =
      sep !== '/' ? join(current, part) : current === '/' ? `/${part}` : `${current}/${part}`;
    if (missing) {
      current = next;
      continue;
    }
    let stats: ReturnType<typeof lstatSync>;
    try {
      stats = lstatSync(next, { throwIfNoEntry: false });
    } catch (error) {
      const code = error_code(error);
      if (code === 'ENOTDIR') return { ok: false, error: `'${current}' is a file, not a folder` };
      if (code === 'ENAMETOOLONG') return { ok: false, error: 'a name in the path is too long' };
      return { ok: false, error: error_text(error) };
    }
    if (stats === undefined) {
      missing = true;
      current = next;
      continue;
    }
    if (!stats.isSymbolicLink()) {
      if (pending.some((rest) => rest !== '' && rest !== '.') && !stats.isDirectory()) {
        return { ok: false, error: `'${next}' is a file, not a folder` };
      }
      current = next;
      last_stats = stats;
      continue;
    }
    hops += 1;
    if (hops > MAX_LINK_HOPS) {
      return { ok: false, error: 'too many levels of symbolic links (a circular link?)' };
    }
    let target: string;
    try {
      const raw = readlinkSync(next, { encoding: 'buffer' });
      target = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch (error) {
      if (error instanceof TypeError) {
        return { ok: false, error: `the symbolic link '${next}' has a target that is not UTF-8` };
      }
      return { ok: false, error: error_text(error) };
    }
    last_link = { from: next, to: target };
    pending.unshift(...target.split('/'));
    if (isAbsolute(target)) current = '/';
  }
  return {
    ok: true,
    path: current,
    exists: !missing,
    last_link,
    lstat: missing ? undefined : last_stats,
  };
}

/** Like `resolve_in_work_dir`, but throws a `PathGuardError` with the refusal. */
export async function require_in_work_dir(
  work_dir: string,
  path: string,
  options: GuardOptions = {},
): Promise<GuardedPath> {
  return require_in_work_dir_sync(work_dir, path, options);
}

/** `require_in_work_dir` without the promise (see `resolve_in_work_dir_sync`). */
export function require_in_work_dir_sync(
  work_dir: string,
  path: string,
  options: GuardOptions = {},
): GuardedPath {
  const result = resolve_in_work_dir_sync(work_dir, path, options);
  if (!result.ok) throw new PathGuardError(result.error);
  return result;
}

/** The `code` of a Node system error, if it has one. */
export function error_code(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A short text for a file system error, without Node's `syscall, path` noise. */
export function error_text(error: unknown): string {
  const code = error_code(error);
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder';
    case 'ENOTDIR':
      return 'not a folder';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'name too long';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EROFS':
      return 'read-only file system';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

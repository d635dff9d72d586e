import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { is_under } from './unix_sockets.js';

/**
 * What git would run or read as config, found in and under the work dir, so that a sandboxed
 * command cannot plant code that git later runs outside the sandbox (a hook, `core.fsmonitor`,
 * a filter, a config it redirects to).
 */
export interface GitProtection {
  /** Folders bound onto themselves, so they cannot be renamed away (`.git`). */
  pinned: string[];
  /** Paths bound read-only: hooks folders, configs, `.git` files of nested repositories. */
  read_only: string[];
  /**
   * Files that redirect git to another config when they appear (`commondir`, `config.worktree`)
   * and did not exist before the command: `audit` removes any that a command made.
   */
  watched: string[];
}

/** Folders never walked for nested repositories: big, generated, or not source. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  '.git',
  '.lich',
  '.hg',
  '.svn',
  'target',
  'dist',
  'build',
  '.venv',
  'venv',
  '__pycache__',
  '.next',
  '.cache',
  '.turbo',
  '.gradle',
]);
/** How deep, and how many folders, the walk for nested repositories goes. */
const WALK_DEPTH = 6;
const WALK_DIRS = 5_000;
/** How long one walk's answer is used. */
const WALK_TTL_MS = 10_000;

function kind_of(path: string): 'dir' | 'file' | 'link' | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/**
 * `core.hooksPath` as a repository's own config file sets it (the last value wins, as in git), or
 * `undefined`. Reads `[core]` sections only; includes are not followed.
 *
 * Contract: pure; never throws.
 */
export function hooks_path_of(config_text: string): string | undefined {
  let section = '';
  let found: string | undefined;
  for (const raw of config_text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      const rest = line.slice(header[0].length).trim();
      if (rest === '' || rest.startsWith('#') || rest.startsWith(';')) continue;
    }
    if (section !== 'core') continue;
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line.replace(/^\[[^\]]*\]\s*/, ''));
    if (!entry) continue;
    let value = entry[1]!.replace(/\s[#;].*$/, '').trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
      value = value.slice(1, -1).replace(/\\(["\\])/g, '$1');
    }
    found = value;
  }
  return found;
}

const config_cache = new Map<string, { mtime: number; size: number; hooks?: string }>();

/** `core.hooksPath` of the git dir `git_dir`, read from its `config` (cached by mtime and size). */
function configured_hooks_path(git_dir: string): string | undefined {
  const path = join(git_dir, 'config');
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  const known = config_cache.get(path);
  if (known && known.mtime === stats.mtimeMs && known.size === stats.size) return known.hooks;
  let hooks: string | undefined;
  try {
    hooks = hooks_path_of(readFileSync(path, 'utf8'));
  } catch {
    hooks = undefined;
  }
  if (config_cache.size > 256) config_cache.clear();
  config_cache.set(path, { mtime: stats.mtimeMs, size: stats.size, ...(hooks ? { hooks } : {}) });
  return hooks;
}

/** The repositories under `work_dir` (their work trees, `work_dir` itself excluded). */
function walk_nested(work_dir: string): string[] {
  const found: string[] = [];
  let seen = 0;
  const queue: { dir: string; depth: number }[] = [{ dir: work_dir, depth: 0 }];
  while (queue.length > 0 && seen < WALK_DIRS) {
    const { dir, depth } = queue.shift()!;
    seen += 1;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === '.git' && dir !== work_dir) found.push(dir);
      if (!entry.isDirectory() || SKIPPED_DIRS.has(entry.name)) continue;
      if (depth + 1 <= WALK_DEPTH) queue.push({ dir: join(dir, entry.name), depth: depth + 1 });
    }
  }
  return found;
}

const nested_cache = new Map<string, { at: number; repos: string[] }>();

/** The nested repositories of `work_dir`, walked at most every `WALK_TTL_MS`. */
function nested_repositories(work_dir: string): string[] {
  const now = Date.now();
  const known = nested_cache.get(work_dir);
  if (known && now - known.at < WALK_TTL_MS) return known.repos;
  const repos = walk_nested(work_dir);
  if (nested_cache.size > 64) nested_cache.clear();
  nested_cache.set(work_dir, { at: now, repos });
  return repos;
}

/** Adds what one git dir (a `.git` folder, or a submodule's under `.git/modules`) must keep. */
function protect_git_dir(
  git_dir: string,
  top: string,
  writable: (path: string) => boolean,
  out: GitProtection,
  depth = 0,
): void {
  const hooks = join(git_dir, 'hooks');
  // made when missing, so that it is there to be bound read-only
  if (kind_of(hooks) === undefined) {
    try {
      mkdirSync(hooks, { recursive: true });
    } catch {
      // no right to: then it cannot be protected as a folder
    }
  }
  if (kind_of(hooks) === 'dir') out.read_only.push(hooks);
  for (const name of ['config', 'commondir', 'config.worktree']) {
    const path = join(git_dir, name);
    const kind = kind_of(path);
    if (kind === 'file') out.read_only.push(path);
    else if (kind === undefined) out.watched.push(path);
  }
  const hooks_path = configured_hooks_path(git_dir);
  if (hooks_path !== undefined && hooks_path !== '' && hooks_path !== '/dev/null') {
    // a relative hooksPath is taken from the top of the work tree, where hooks run
    const home = process.env.HOME ?? '';
    const absolute = hooks_path.startsWith('~/')
      ? join(home, hooks_path.slice(2))
      : resolve(top, hooks_path);
    if (writable(absolute)) {
      if (kind_of(absolute) === undefined) {
        try {
          mkdirSync(absolute, { recursive: true });
        } catch {
          // cannot make it: then nothing is there to run either
        }
      }
      if (kind_of(absolute) === 'dir' || kind_of(absolute) === 'file') out.read_only.push(absolute);
    }
  }
  // submodules keep their git dirs under .git/modules/<name> (nested for nested submodules)
  const modules = join(git_dir, 'modules');
  if (depth < 4 && kind_of(modules) === 'dir') {
    for (const module of list_git_dirs(modules)) {
      // bound onto itself: a folder holding read-only mounts could otherwise be renamed away
      out.pinned.push(module);
      protect_git_dir(module, top, writable, out, depth + 1);
    }
  }
  // linked worktrees' own admin folders may carry a config.worktree and a commondir
  const worktrees = join(git_dir, 'worktrees');
  if (depth === 0 && kind_of(worktrees) === 'dir') {
    for (const name of safe_readdir(worktrees)) {
      for (const file of ['commondir', 'config.worktree', 'gitdir']) {
        const path = join(worktrees, name, file);
        if (kind_of(path) === 'file') out.read_only.push(path);
      }
    }
  }
}

function safe_readdir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The git dirs under a `.git/modules` folder (a module name may hold slashes). */
function list_git_dirs(modules: string, depth = 0): string[] {
  const out: string[] = [];
  for (const name of safe_readdir(modules)) {
    const dir = join(modules, name);
    if (kind_of(dir) !== 'dir') continue;
    if (kind_of(join(dir, 'HEAD')) === 'file') out.push(dir);
    else if (depth < 3) out.push(...list_git_dirs(dir, depth + 1));
  }
  return out;
}

/**
 * What a sandboxed command in `work_dir` must not change for git's sake. `writable` tells whether
 * a path is writable in the sandbox at all (a hooks folder outside it is protected already).
 *
 * Contract: never throws. For `work_dir/.git` (a folder): `.git` pinned; its `hooks` (made when
 * missing), `config`, and any `commondir` or `config.worktree` read-only, and those two watched
 * when absent; the same for each submodule's git dir under `.git/modules`, and the admin files of
 * linked worktrees; the folder `core.hooksPath` names (husky's `.husky`), when it lies where the
 * command may write. For a `.git` file (a worktree or submodule): the file read-only. Then the
 * same for every repository nested in the work dir (walked at most every 10 s, 6 levels and 5000
 * folders deep, skipping `node_modules` and build output).
 */
export function git_protection(
  work_dir: string,
  writable: (path: string) => boolean,
): GitProtection {
  const out: GitProtection = { pinned: [], read_only: [], watched: [] };
  const repos = [work_dir, ...nested_repositories(work_dir)];
  for (const top of repos) {
    const git = join(top, '.git');
    const kind = kind_of(git);
    if (kind === 'dir') {
      out.pinned.push(git);
      protect_git_dir(git, top, writable, out);
    } else if (kind === 'file') {
      // a worktree's or submodule's pointer to its git dir: redirected, it would name a config
      out.read_only.push(git);
      const target = pointed_git_dir(git);
      if (target !== undefined && writable(target) && kind_of(target) === 'dir') {
        out.pinned.push(target);
        protect_git_dir(target, top, writable, out);
      }
    }
  }
  out.pinned = [...new Set(out.pinned)];
  out.read_only = [...new Set(out.read_only)];
  out.watched = [...new Set(out.watched)];
  return out;
}

/** The folder a `.git` file points to (`gitdir: <path>`), or `undefined`. */
function pointed_git_dir(file: string): string | undefined {
  try {
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, 'utf8'));
    return match ? resolve(dirname(file), match[1]!) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * After a command: removes each watched file that the command made (it did not exist before),
 * and returns them relative to `work_dir`.
 *
 * Contract: never throws.
 */
export function audit_git_files(watched: readonly string[], work_dir: string): string[] {
  const removed: string[] = [];
  for (const path of watched) {
    if (kind_of(path) === undefined) continue;
    try {
      unlinkSync(path);
      removed.push(is_under(path, work_dir) ? relative(work_dir, path) : path);
    } catch {
      // a folder in its place, or no right to remove it: reported all the same
      removed.push(is_under(path, work_dir) ? relative(work_dir, path) : path);
    }
  }
  return removed;
}

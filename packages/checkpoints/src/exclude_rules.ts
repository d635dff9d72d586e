/**
 * What a checkpoint leaves out. Always: every `.git` (folder or file, at any depth) and every `.lich`
 * folder. By default, also dependency and cache folders (`node_modules` and the like, and any folder
 * tagged with a `CACHEDIR.TAG`): reinstalling brings them back, and they would dwarf the rest.
 * Gitignored files such as `.env` are kept: a command that deletes one is what undo is for.
 */

/** Names never checkpointed nor touched by a restore, at any depth. */
export const ALWAYS_EXCLUDED: readonly string[] = ['.git', '.lich'];

/**
 * The prefix of the files a restore writes beside their final name before renaming them over it:
 * one left by a restore that was killed is never recorded.
 */
export const RESTORE_TMP_PREFIX = '.lich-restore-';

/**
 * Dependency and cache folders left out by default (`default_excludes: false` keeps them). A
 * folder holding a `CACHEDIR.TAG` (cargo's `target/`, many tools' caches) is left out as well.
 */
export const DEFAULT_EXCLUDES: readonly string[] = [
  'node_modules/',
  'bower_components/',
  'jspm_packages/',
  '.pnpm-store/',
  '.yarn/cache/',
  '.yarn/unplugged/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '.tox/',
  '.nox/',
  '.mypy_cache/',
  '.pytest_cache/',
  '.ruff_cache/',
  '.gradle/',
  '.terraform/',
];

/** The first bytes of a valid `CACHEDIR.TAG` (https://bford.info/cachedir/). */
export const CACHEDIR_TAG_SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55';

/** Compiled exclude rules. */
export interface ExcludeRules {
  /**
   * True when `rel_path` (`/`-separated, relative to the work folder) is left out. `is_dir` says
   * whether it is a folder (a pattern ending in `/` matches folders only).
   */
  is_excluded(rel_path: string, name: string, is_dir: boolean): boolean;
  /** Whether folders tagged with a `CACHEDIR.TAG` are left out. */
  readonly cache_tags: boolean;
}

interface Pattern {
  readonly dir_only: boolean;
  /** Tested against the path relative to the work folder (anchored) or against the name. */
  readonly anchored: boolean;
  readonly literal: string | undefined;
  readonly regex: RegExp | undefined;
}

const GLOB_CHARS = /[*?[]/;

function glob_to_regex(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more folders; a trailing `**` everything below
        const slash = glob[i + 2] === '/';
        source += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else {
        source += '[^/]*';
      }
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) {
        source += '\\[';
      } else {
        const body = glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = end;
      }
    } else {
      source += char.replace(/[.+^${}()|\\\]]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

function compile(raw: string): Pattern | undefined {
  let text = raw.trim();
  if (text === '' || text.startsWith('#')) return undefined;
  const dir_only = text.endsWith('/');
  if (dir_only) text = text.replace(/\/+$/, '');
  const anchored = text.includes('/');
  text = text.replace(/^\/+/, '');
  if (text === '') return undefined;
  const literal = GLOB_CHARS.test(text) ? undefined : text;
  return {
    dir_only,
    anchored,
    literal,
    regex: literal === undefined ? glob_to_regex(text) : undefined,
  };
}

/**
 * Compiles exclude patterns, gitignore-like: a pattern without `/` matches a name at any depth
 * (`*.log`, `build`); one with `/` matches the path from the work folder (`data/raw`, `/out`); a
 * trailing `/` matches folders only; `*` and `?` stay within a name, `**` crosses folders. There
 * is no `!` negation. The `ALWAYS_EXCLUDED` names are added in every case; `DEFAULT_EXCLUDES` and
 * the `CACHEDIR.TAG` rule unless `default_excludes` is false.
 *
 * Contract: never throws; an empty or comment pattern is ignored.
 */
export function compile_excludes(
  patterns: readonly string[] = [],
  options: { default_excludes?: boolean } = {},
): ExcludeRules {
  const use_defaults = options.default_excludes !== false;
  const all = [...(use_defaults ? DEFAULT_EXCLUDES : []), ...patterns];
  const names = new Set<string>(ALWAYS_EXCLUDED);
  const dir_names = new Set<string>();
  const paths = new Set<string>();
  const dir_paths = new Set<string>();
  const globs: Pattern[] = [];
  for (const raw of all) {
    const pattern = compile(raw);
    if (pattern === undefined) continue;
    if (pattern.literal === undefined) {
      globs.push(pattern);
    } else if (pattern.anchored) {
      (pattern.dir_only ? dir_paths : paths).add(pattern.literal);
    } else {
      (pattern.dir_only ? dir_names : names).add(pattern.literal);
    }
  }
  const anchored_defaults = use_defaults
    ? DEFAULT_EXCLUDES.filter((entry) => entry.replace(/\/$/, '').includes('/'))
    : [];
  // `.yarn/cache/` is written with a slash but meant at any depth, like the other defaults
  const tail_dirs = anchored_defaults.map((entry) => `/${entry.replace(/\/$/, '')}`);
  for (const entry of anchored_defaults) dir_paths.delete(entry.replace(/\/$/, ''));
  return {
    cache_tags: use_defaults,
    is_excluded(rel_path, name, is_dir) {
      if (names.has(name) || paths.has(rel_path)) return true;
      if (name.startsWith(RESTORE_TMP_PREFIX)) return true;
      if (is_dir) {
        if (dir_names.has(name) || dir_paths.has(rel_path)) return true;
        for (const tail of tail_dirs) {
          if (rel_path.endsWith(tail) || `/${rel_path}` === tail) return true;
        }
      }
      for (const glob of globs) {
        if (glob.dir_only && !is_dir) continue;
        if (glob.regex!.test(glob.anchored ? rel_path : name)) return true;
      }
      return false;
    },
  };
}

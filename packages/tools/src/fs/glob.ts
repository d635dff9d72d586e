import { isAbsolute, join } from 'node:path';
import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { not_denied, refuse_denied } from './denied.js';
import { GitIgnoreFilter } from './gitignore.js';
import { GlobFileSystem, NOT_UTF8_MARK } from './glob_fs.js';
import { PathGuardError } from './guard.js';
import { stat_in_work_dir } from './safe_fs.js';

/** The most paths `glob` returns. */
export const GLOB_MAX_RESULTS = 1_000;

const parameters = z
  .object({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/*.{js,json}".'),
    path: z
      .string()
      .optional()
      .describe('Folder to search from, relative to the work dir. Default: the work dir.'),
  })
  .strict();

/** Arguments of `glob`. */
export type GlobArgs = z.infer<typeof parameters>;

/**
 * `glob { pattern, path? }`: files whose path matches a glob, relative to the work dir, sorted.
 *
 * Contract: files only; `.gitignore`d paths and `.git/` left out, hidden files only when the
 * pattern names them (`.github/**`); symbolic links are not followed; paths through a name that
 * is not valid UTF-8 are returned (U+FFFD in place of the bad bytes) and marked as `list_dir`
 * marks such names; a pattern that is absolute
 * or climbs out with `..` is refused, as is a `path` the guard refuses; at most `GLOB_MAX_RESULTS`
 * paths, the rest counted; honours the abort signal.
 */
export const glob_tool: Tool<GlobArgs> = {
  name: 'glob',
  description:
    'Find files by glob pattern (e.g. "**/*.ts"). Returns paths relative to the work dir, sorted. ' +
    'Respects .gitignore.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const pattern = args.pattern.trim();
    if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
      return {
        ok: false,
        output: `The pattern '${pattern}' must stay inside the search folder: no absolute paths, no '..'. Use path to choose the folder.`,
      };
    }
    const { guarded: base, stats, shown } = stat_in_work_dir(context.work_dir, args.path);
    if (!stats.isDirectory()) {
      throw new PathGuardError(`'${shown}' is a file, not a folder; glob searches folders`);
    }
    refuse_denied(context, base.path, shown);
    const visible = not_denied(context);
    // loaded on first use: tinyglobby brings fdir and picomatch, which most runs never need
    const { glob: tiny_glob } = await import('tinyglobby');
    const file_system = new GlobFileSystem(new GitIgnoreFilter());
    const found = await tiny_glob(pattern, {
      cwd: base.path,
      onlyFiles: true,
      dot: false,
      followSymbolicLinks: false,
      expandDirectories: false,
      signal: context.signal,
      fs: file_system.adapter,
    });
    context.signal.throwIfAborted();
    const relative = found
      .map((path) => (base.relative === '' ? path : `${base.relative}/${path}`))
      .filter((path) => !path.startsWith('../') && !path.split('/').includes('.git'))
      .filter((path) => visible(join(base.work_dir, path)));
    relative.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (relative.length === 0) return `No files match ${pattern} in ${shown}.`;
    const kept = relative
      .slice(0, GLOB_MAX_RESULTS)
      .map((path) =>
        file_system.is_marked(join(base.work_dir, path)) ? `${path}${NOT_UTF8_MARK}` : path,
      );
    const more = relative.length - kept.length;
    return more > 0
      ? `${kept.join('\n')}\n(${more} more files not shown; narrow the pattern)`
      : kept.join('\n');
  },
};

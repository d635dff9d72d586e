import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { denied_in_work_dir, not_denied } from '../fs/denied.js';
import { error_text, resolve_in_work_dir } from '../fs/guard.js';
import { output_budget } from '../output_budget.js';
import { grep_js } from './grep_js.js';
import { GrepCollector } from './grep_output.js';
import { find_ripgrep, grep_rg } from './grep_rg.js';
import { OverrideGlobs } from './override_glob.js';

/** The most matching lines `grep` returns. */
export const GREP_MAX_MATCHES = 500;
/** The most context lines `grep` shows around a match. */
export const GREP_MAX_CONTEXT = 20;

/** Which engine searches: ripgrep's packaged binary, the JS fallback, or ripgrep when present. */
export type GrepEngine = 'auto' | 'rg' | 'js';

/** One text search. */
export interface GrepOptions {
  work_dir: string;
  /** A regular expression (ripgrep syntax; a leading `(?i)` ignores case). */
  pattern: string;
  /** A folder or file under the work dir. Default: the work dir. */
  path?: string;
  /** Only files matching this glob (`*.ts`, `src/**`, `!*.min.js`), ripgrep's `--glob` rules. */
  glob?: string;
  /** Context lines before and after each match. Default 0. */
  context?: number;
  engine?: GrepEngine;
  signal?: AbortSignal;
  max_matches?: number;
  max_chars?: number;
  /** False for a real path whose lines may not be shown (a masked credential store). */
  visible?: (path: string) => boolean;
}

/** What a search found. `output` is the same text whichever engine ran. */
export interface GrepResult {
  ok: boolean;
  output: string;
  /** The engine that ran. `auto` picks `rg` when ripgrep is installed. */
  engine: 'rg' | 'js';
  matches: number;
  files: number;
}

/**
 * Searches file contents under the work dir: `path:line:text` per matching line (paths relative to
 * the work dir), `path-line-text` for context lines, `--` between groups.
 *
 * Contract: never throws. A refused path, a missing path, a FIFO, socket or device (refused before
 * anything opens it, so nothing blocks), a bad pattern or glob, or `engine: 'rg'`
 * without ripgrep installed give `ok: false` and a message. Files are taken in path order; hidden
 * files, `.gitignore`d paths, symbolic links and binary files are skipped (a glob that matches a
 * file overrides the first two, as `rg -g` does). At most `max_matches` matching lines
 * (`GREP_MAX_MATCHES`) and `max_chars` characters, the stop noted. Honours `signal`. A folder
 * swapped for a link while the search runs leads nowhere outside: the JS engine opens each file
 * so that the file opened must be the one at its path, and ripgrep's lines are kept only when
 * the file at their path, opened that way, holds them (`LineVerifier`).
 */
export async function grep_search(options: GrepOptions): Promise<GrepResult> {
  const signal = options.signal ?? new AbortController().signal;
  const fail = (output: string, engine: 'rg' | 'js' = 'js'): GrepResult => ({
    ok: false,
    output,
    engine,
    matches: 0,
    files: 0,
  });
  if (options.pattern === '') return fail('pattern is empty.');
  const context = Math.max(0, Math.min(GREP_MAX_CONTEXT, Math.floor(options.context ?? 0)));
  const glob_list =
    options.glob === undefined || options.glob.trim() === '' ? [] : [options.glob.trim()];
  let globs: OverrideGlobs;
  try {
    globs = new OverrideGlobs(glob_list);
  } catch (error) {
    return fail(`invalid glob: ${(error as Error).message}`);
  }
  const shown = options.path === undefined || options.path === '' ? '.' : options.path;
  const guarded = await resolve_in_work_dir(options.work_dir, options.path ?? '');
  if (!guarded.ok) return fail(guarded.error);
  if (!guarded.exists) return fail(`'${shown}' does not exist.`);
  if (options.visible !== undefined && !options.visible(guarded.path)) {
    return fail(
      `'${shown}' is masked from tools and commands (credentials); see sandbox.allow_read.`,
    );
  }
  let is_file: boolean;
  try {
    const stats = await stat(guarded.path);
    const kind = special_kind(stats);
    if (kind !== undefined) {
      // opening a FIFO blocks until a writer comes, and a device may never end: refuse at once
      return fail(`'${shown}' is ${kind}, not a regular file; grep searches files and folders.`);
    }
    is_file = !stats.isDirectory();
  } catch (error) {
    return fail(`'${shown}': ${error_text(error)}`);
  }

  const wanted = options.engine ?? 'auto';
  const rg_path = wanted === 'js' ? undefined : await find_ripgrep();
  if (wanted === 'rg' && rg_path === undefined) {
    return fail('ripgrep (@vscode/ripgrep) is not installed.', 'rg');
  }
  const engine = rg_path === undefined ? 'js' : 'rg';
  const collector = new GrepCollector({
    max_matches: Math.max(1, options.max_matches ?? GREP_MAX_MATCHES),
    max_chars: Math.max(1_000, options.max_chars ?? 50_000),
  });
  const search = {
    root: guarded.work_dir,
    target: guarded.path,
    target_relative: guarded.relative,
    target_is_file: is_file,
    pattern: options.pattern,
    globs,
    context,
    collector,
    signal,
    ...(options.visible === undefined ? {} : { visible: options.visible }),
  };
  const run =
    rg_path === undefined ? await grep_js(search) : await grep_rg(rg_path, search, glob_list);
  if (run.error !== undefined) {
    return { ok: false, output: run.error, engine, matches: 0, files: 0 };
  }
  let output = collector.text();
  if (collector.matches === 0) output = `No matches for ${options.pattern} in ${shown}.`;
  if (collector.stopped === 'matches') {
    output += `\n(stopped at ${collector.matches} matching lines; narrow the pattern, path or glob for the rest)`;
  } else if (collector.stopped === 'chars') {
    output += `\n(output limit reached after ${collector.matches} matching lines; narrow the pattern, path or glob for the rest)`;
  }
  if (run.skipped !== undefined) output += `\n(${run.skipped})`;
  return { ok: true, output, engine, matches: collector.matches, files: collector.file_count };
}

/** What a path that is neither a regular file nor a folder is, said for the model. */
function special_kind(stats: Stats): string | undefined {
  if (stats.isFile() || stats.isDirectory()) return undefined;
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'a special file';
}

const parameters = z
  .object({
    pattern: z
      .string()
      .describe(
        'Regular expression to search for (ripgrep syntax; start with (?i) to ignore case).',
      ),
    path: z
      .string()
      .optional()
      .describe('Folder or file to search, relative to the work dir. Default: the work dir.'),
    glob: z
      .string()
      .optional()
      .describe(
        'Only search files matching this glob, e.g. "*.ts" or "src/**/*.py"; "!*.min.js" excludes.',
      ),
    context: z
      .number()
      .int()
      .min(0)
      .max(GREP_MAX_CONTEXT)
      .optional()
      .describe('Lines of context to show before and after each match. Default 0.'),
  })
  .strict();

/** Arguments of `grep`. */
export type GrepArgs = z.infer<typeof parameters>;

/**
 * `grep { pattern, path?, glob?, context? }`: regex search over file contents, through
 * `grep_search` with ripgrep when it is installed and the JS engine otherwise.
 */
export const grep_tool: Tool<GrepArgs> = {
  name: 'grep',
  description:
    'Search file contents with a regular expression. Returns "path:line:text" for each matching ' +
    'line (context lines as "path-line-text"). Respects .gitignore; skips hidden and binary files.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const result = await grep_search({
      work_dir: context.work_dir,
      pattern: args.pattern,
      path: args.path,
      glob: args.glob,
      context: args.context,
      signal: context.signal,
      max_chars: output_budget(context),
      ...(denied_in_work_dir(context).length === 0 ? {} : { visible: not_denied(context) }),
    });
    return { ok: result.ok, output: result.output };
  },
};

/**
 * The JS engine of `grep`, used when ripgrep's packaged binary is not installed. It walks and
 * filters files as `rg --sort path --no-require-git` does (each folder's entries in name order,
 * depth first; hidden names, `.gitignore`d paths and symbolic links skipped; `--glob` overrides
 * first; files holding a NUL byte skipped as binary) and prints through the same collector, so
 * both engines give the same output.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import { GitIgnoreFilter } from '../fs/gitignore.js';
import type { GrepCollector } from './grep_output.js';
import type { OverrideGlobs } from './override_glob.js';

/** Files larger than this are skipped by the JS engine (the whole file is read into memory). */
export const GREP_JS_MAX_FILE_BYTES = 64 * 1024 * 1024;

/** One search, as both engines receive it. */
export interface GrepSearch {
  /** The work dir's real path. */
  root: string;
  /** The real absolute path searched: a folder or a file. */
  target: string;
  /** `target` relative to `root` (`''` for the root itself). */
  target_relative: string;
  target_is_file: boolean;
  pattern: string;
  globs: OverrideGlobs;
  /** Context lines before and after each match. */
  context: number;
  collector: GrepCollector;
  signal: AbortSignal;
  /** False for a real path whose lines may not be shown (a masked credential store). */
  visible?: (path: string) => boolean;
}

/** How a file is opened for searching: never through a final link, never blocking on a FIFO. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens `fs_path` (a real path the walk reached) and checks, through Linux's `/proc/self/fd`,
 * that the file opened is the one at that very path: a folder on the way swapped for a link since
 * the walk listed it would have led the open elsewhere, out of the work dir. Undefined then (and
 * for a file that is gone, or not a regular file).
 */
export function open_checked(fs_path: string | Buffer): number | undefined {
  let fd: number;
  try {
    fd = openSync(fs_path, OPEN_FLAGS);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new Error('not a regular file');
    if (process.platform === 'linux') {
      const opened = readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
      if (!opened.equals(typeof fs_path === 'string' ? Buffer.from(fs_path) : fs_path)) {
        throw new Error('moved');
      }
    }
    return fd;
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** How an engine's search ended: normally, or with an error message for the model. */
export interface GrepRun {
  error?: string;
  /** Files the engine left out, and why, when it says so. */
  skipped?: string;
}

const SLICE_MS = 15;
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * Compiles a ripgrep-style pattern for JS: a leading `(?i)` becomes the `i` flag; Unicode mode
 * when the pattern allows it. Throws a `SyntaxError` for a pattern JS cannot compile.
 */
export function compile_pattern(pattern: string): RegExp {
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    const wanted = inline[1] as string;
    if (wanted.includes('i')) flags += 'i';
    if (wanted.includes('s')) flags += 's';
    if (wanted.includes('m')) flags += 'm';
    source = source.slice(inline[0].length);
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    return new RegExp(source, flags);
  }
}

const LITERAL = /^[^\\^$.|?*+()[\]{}]+$/;

interface Matcher {
  /** A cheap test on the raw bytes: false means no line of the file can match. */
  maybe(bytes: Buffer): boolean;
  line(text: string): boolean;
}

function make_matcher(pattern: string): Matcher {
  const regex = compile_pattern(pattern);
  if (LITERAL.test(pattern)) {
    const needle = Buffer.from(pattern, 'utf8');
    return {
      maybe: (bytes) => bytes.indexOf(needle) !== -1,
      line: (text) => text.includes(pattern),
    };
  }
  return { maybe: () => true, line: (text) => regex.test(text) };
}

/** Searches with the JS engine. Contract: never throws; stops at the collector's cap or on abort. */
export async function grep_js(search: GrepSearch): Promise<GrepRun> {
  let matcher: Matcher;
  try {
    matcher = make_matcher(search.pattern);
  } catch (error) {
    return { error: `invalid regular expression: ${(error as Error).message}` };
  }
  const ignores = new GitIgnoreFilter();
  const shared = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  let slice_started = performance.now();
  let full = false;
  let skipped_large = 0;

  const pause = async (): Promise<void> => {
    if (performance.now() - slice_started < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    search.signal.throwIfAborted();
    slice_started = performance.now();
  };

  const search_file = (fs_path: string | Buffer, shown: string): void => {
    let data: Buffer;
    let length: number;
    if (search.visible !== undefined && !search.visible(String(fs_path))) return;
    const fd = open_checked(fs_path);
    if (fd === undefined) return;
    try {
      length = readSync(fd, shared, 0, READ_BUFFER_BYTES, 0);
      data = shared;
      if (length === READ_BUFFER_BYTES) {
        // the rest through the same descriptor: the path may point elsewhere by now
        if (fstatSync(fd).size > GREP_JS_MAX_FILE_BYTES) {
          skipped_large += 1;
          return;
        }
        data = readFileSync(fd);
        length = data.length;
      }
    } catch {
      return;
    } finally {
      closeSync(fd);
    }
    const view = data.subarray(0, length);
    if (view.indexOf(0) !== -1) return;
    if (!matcher.maybe(view)) return;
    const text = view.toString('utf8');
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const hits: number[] = [];
    for (let index = 0; index < lines.length; index++) {
      if (matcher.line(lines[index] as string)) hits.push(index);
    }
    if (hits.length === 0) return;
    full = !emit(search, shown, lines, hits);
  };

  const visit = async (fs_dir: string | Buffer, relative: string): Promise<void> => {
    let names: Array<{ name: string; raw?: Buffer; dir: boolean; file: boolean }>;
    try {
      names = readdirSync(fs_dir, { withFileTypes: true }).map((entry) => ({
        name: entry.name,
        dir: entry.isDirectory(),
        file: entry.isFile(),
      }));
    } catch {
      return;
    }
    if (names.some((entry) => entry.name.includes('\uFFFD'))) attach_raw_names(fs_dir, names);
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of names) {
      if (full) return;
      // symbolic links and special files are skipped, as rg does without --follow
      if (!entry.dir && !entry.file) continue;
      const child_relative = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const child_fs =
        entry.raw !== undefined || typeof fs_dir !== 'string'
          ? Buffer.concat([
              as_buffer(fs_dir),
              Buffer.from('/'),
              entry.raw ?? Buffer.from(entry.name),
            ])
          : `${fs_dir}/${entry.name}`;
      const verdict = search.globs.match(child_relative, entry.dir);
      if (verdict === 'exclude') continue;
      if (verdict === undefined) {
        if (entry.name.startsWith('.')) continue;
        if (ignores.ignores(`${search.root}/${child_relative}`, entry.dir)) continue;
      }
      if (entry.dir) await visit(child_fs, child_relative);
      else {
        search_file(child_fs, child_relative);
        await pause();
      }
    }
  };

  try {
    if (search.target_is_file) search_file(search.target, search.target_relative);
    else await visit(search.target, search.target_relative);
  } catch (error) {
    if (search.signal.aborted) return { error: 'aborted' };
    return { error: (error as Error).message };
  }
  return skipped_large > 0
    ? { skipped: `${skipped_large} file(s) over ${GREP_JS_MAX_FILE_BYTES} bytes were not searched` }
    : {};
}

function as_buffer(path: string | Buffer): Buffer {
  return typeof path === 'string' ? Buffer.from(path) : path;
}

/** Names that are not valid UTF-8 come back with U+FFFD; find their raw bytes to open them. */
function attach_raw_names(
  fs_dir: string | Buffer,
  names: Array<{ name: string; raw?: Buffer }>,
): void {
  let raws: Buffer[];
  try {
    raws = readdirSync(fs_dir, { encoding: 'buffer' });
  } catch {
    return;
  }
  const by_name = new Map<string, Buffer>();
  for (const raw of raws) by_name.set(raw.toString('utf8'), raw);
  for (const entry of names) {
    if (entry.name.includes('\uFFFD')) entry.raw = by_name.get(entry.name);
  }
}

/** Feeds one file's hits, with context, to the collector. Returns false once it is full. */
function emit(search: GrepSearch, path: string, lines: string[], hits: number[]): boolean {
  const { collector, context } = search;
  if (context === 0) {
    for (const hit of hits) {
      if (!collector.add_match(path, hit + 1, lines[hit] as string)) return false;
    }
    return true;
  }
  if (!collector.add_separator()) return false;
  let emitted_until = -1;
  for (let index = 0; index < hits.length; index++) {
    const hit = hits[index] as number;
    const start = Math.max(hit - context, emitted_until + 1);
    if (emitted_until >= 0 && start > emitted_until + 1 && !collector.add_separator()) return false;
    for (let line = start; line < hit; line++) {
      if (!collector.add_context(path, line + 1, lines[line] as string)) return false;
    }
    if (!collector.add_match(path, hit + 1, lines[hit] as string)) return false;
    emitted_until = hit;
    const next = hits[index + 1] ?? Number.POSITIVE_INFINITY;
    const end = Math.min(hit + context, lines.length - 1, next - 1);
    for (let line = hit + 1; line <= end; line++) {
      if (!collector.add_context(path, line + 1, lines[line] as string)) return false;
    }
    if (end > emitted_until) emitted_until = end;
  }
  return true;
}

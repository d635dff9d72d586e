/**
 * The ripgrep engine of `grep`: ripgrep's packaged binary (`@vscode/ripgrep`, an optional
 * dependency), its output parsed into the shared collector.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { child_process_module } from '../shell/child_process_module.js';
import type { GrepRun, GrepSearch } from './grep_js.js';
import type { GrepCollector } from './grep_output.js';
import { LineVerifier } from './grep_verify.js';

let located: Promise<string | undefined> | undefined;

/**
 * The path of ripgrep's packaged binary, or undefined when `@vscode/ripgrep` (or its platform
 * package) is not installed or the binary is not executable. Looked up once per process.
 *
 * Contract: never rejects.
 */
export function find_ripgrep(): Promise<string | undefined> {
  located ??= (async () => {
    try {
      const module = (await import('@vscode/ripgrep')) as { rgPath?: unknown };
      if (typeof module.rgPath !== 'string') return undefined;
      await access(module.rgPath, constants.X_OK);
      return module.rgPath;
    } catch {
      return undefined;
    }
  })();
  return located;
}

/**
 * The arguments `grep` passes to ripgrep, `cwd` being the work dir. Exported so the benchmark and
 * the tests run the very same search. `sorted` makes ripgrep print files in path order, which
 * costs its parallelism; unsorted, ripgrep still prints each file's lines together.
 */
export function ripgrep_arguments(search: {
  pattern: string;
  globs: readonly string[];
  context: number;
  target_relative: string;
  sorted?: boolean;
}): string[] {
  const args = [
    '--no-config',
    '--line-number',
    '--with-filename',
    '--no-heading',
    '--null',
    '--color=never',
    '--no-require-git',
    '--no-ignore-global',
    '--no-ignore-dot',
    '--engine=auto',
  ];
  if (search.sorted === true) args.push('--sort=path');
  for (const glob of search.globs) args.push('--glob', glob);
  if (search.context > 0) args.push('--context', String(search.context));
  args.push(
    '--regexp',
    search.pattern,
    '--',
    search.target_relative === '' ? './' : search.target_relative,
  );
  return args;
}

/**
 * Compares two relative paths as a walk in name order visits them: folder by folder, each name
 * by UTF-16 code units (the order of ripgrep's `--sort=path` and of the JS engine).
 */
export function compare_walk_order(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const x = left[index] as string;
    const y = right[index] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** One file's lines of ripgrep output, as printed. */
interface FileBlock {
  path: string;
  lines: Buffer[];
}

/**
 * Searches with ripgrep at `rg_path`. ripgrep runs on all cores, unsorted; its per-file blocks
 * are put in path order here, so the output is the same as a sorted run. A result larger than the
 * collector can hold is searched again sorted, so which lines are kept never depends on timing.
 *
 * Contract: never rejects; kills ripgrep once the collector is full or the signal fires; a
 * ripgrep error (a bad pattern) with no results becomes `{ error }` with ripgrep's message.
 */
export async function grep_rg(
  rg_path: string,
  search: GrepSearch,
  globs: readonly string[],
): Promise<GrepRun> {
  const { collector } = search;
  const strip = search.target_relative === '' ? 2 : 0;
  const verifier = new LineVerifier(search.root, search.visible);
  const blocks: FileBlock[] = [];
  let buffered_chars = 0;
  let buffered_lines = 0;
  const buffer_line = (line: Buffer): boolean => {
    buffered_chars += line.length + 1;
    buffered_lines += 1;
    if (buffered_chars > collector.max_chars || buffered_lines > collector.max_matches * 4) {
      return false;
    }
    const last = blocks[blocks.length - 1];
    if (is_separator(line)) {
      last?.lines.push(line);
      return true;
    }
    const nul = line.indexOf(0);
    const path = nul === -1 ? '' : line.toString('utf8', strip, nul);
    if (last === undefined || last.path !== path) {
      while (last !== undefined && is_separator(last.lines[last.lines.length - 1]))
        last.lines.pop();
      blocks.push({ path, lines: [line] });
    } else {
      last.lines.push(line);
    }
    return true;
  };
  const unsorted = await run_ripgrep(rg_path, search, globs, false, buffer_line);
  if (unsorted.stopped !== true) {
    blocks.sort((a, b) => compare_walk_order(a.path, b.path));
    let first = true;
    for (const block of blocks) {
      if (!first && search.context > 0 && !collector.add_separator()) break;
      first = false;
      if (!block.lines.every((line) => take_line(line, strip, collector, verifier))) break;
    }
    return with_dropped(unsorted.run, verifier);
  }
  if (search.signal.aborted) return { error: 'aborted' };
  const sorted = await run_ripgrep(rg_path, search, globs, true, (line) =>
    take_line(line, strip, collector, verifier),
  );
  return with_dropped(sorted.run, verifier);
}

/** The run, noting lines left out because their file changed while ripgrep read it. */
function with_dropped(run: GrepRun, verifier: LineVerifier): GrepRun {
  if (verifier.dropped === 0 || run.error !== undefined) return run;
  const note = `${verifier.dropped} line(s) left out: their file changed while it was searched, or is not shown to tools`;
  return { ...run, skipped: run.skipped === undefined ? note : `${run.skipped}\n${note}` };
}

function is_separator(line: Buffer | undefined): boolean {
  return line !== undefined && line.length === 2 && line[0] === 0x2d && line[1] === 0x2d;
}

/** Feeds one line of ripgrep output to the collector, once verified; false once it is full. */
function take_line(
  line: Buffer,
  strip: number,
  collector: GrepCollector,
  verifier: LineVerifier,
): boolean {
  if (is_separator(line)) return collector.add_separator();
  const nul = line.indexOf(0);
  if (nul === -1) return true;
  const path = line.toString('utf8', strip, nul);
  let index = nul + 1;
  let number = 0;
  while (index < line.length) {
    const byte = line[index] as number;
    if (byte < 0x30 || byte > 0x39) break;
    number = number * 10 + (byte - 0x30);
    index += 1;
  }
  const text = line.toString('utf8', index + 1);
  if (!verifier.check(line.subarray(strip, nul), number, text)) return true;
  return line[index] === 0x3a
    ? collector.add_match(path, number, text)
    : collector.add_context(path, number, text);
}

/**
 * Runs ripgrep once, handing each output line to `on_line` until it returns false (then ripgrep
 * is killed and `stopped` is true). Never rejects.
 */
function run_ripgrep(
  rg_path: string,
  search: GrepSearch,
  globs: readonly string[],
  sorted: boolean,
  on_line: (line: Buffer) => boolean,
): Promise<{ run: GrepRun; stopped: boolean }> {
  return new Promise((resolve) => {
    const args = ripgrep_arguments({ ...search, globs, sorted });
    const child = child_process_module().spawn(rg_path, args, {
      cwd: search.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: search.signal,
    });
    let pending: Buffer = Buffer.alloc(0);
    let stopped = false;
    let stderr = '';
    let settled = false;
    let lines = 0;
    const finish = (run: GrepRun) => {
      if (settled) return;
      settled = true;
      resolve({ run, stopped });
    };
    const take = (line: Buffer) => {
      lines += 1;
      return on_line(line);
    };

    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let newline = data.indexOf(10);
      while (newline !== -1) {
        if (!take(data.subarray(0, newline))) {
          stopped = true;
          child.kill('SIGKILL');
          return;
        }
        data = data.subarray(newline + 1);
        newline = data.indexOf(10);
      }
      pending = Buffer.from(data);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4_000) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      if (search.signal.aborted) finish({ error: 'aborted' });
      else finish({ error: `ripgrep could not run: ${error.message}` });
    });
    child.on('close', (code) => {
      if (!stopped && pending.length > 0 && !take(pending)) stopped = true;
      if (search.signal.aborted) return finish({ error: 'aborted' });
      if (stopped || code === 0 || code === 1) return finish({});
      const message = stderr.trim();
      if (lines === 0) {
        return finish({ error: message === '' ? `ripgrep exited with code ${code}` : message });
      }
      return finish({
        skipped: message === '' ? undefined : message.split('\n').slice(0, 5).join('\n'),
      });
    });
  });
}

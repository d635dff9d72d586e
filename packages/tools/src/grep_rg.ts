/**
 * The ripgrep engine of `grep`: ripgrep's packaged binary (`@vscode/ripgrep`, an optional
 * dependency), its output parsed into the shared collector.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { child_process_module } from './child_process_module.js';
import type { GrepRun, GrepSearch } from './grep_js.js';

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
 * the tests run the very same search.
 */
export function ripgrep_arguments(search: {
  pattern: string;
  globs: readonly string[];
  context: number;
  target_relative: string;
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
    '--sort=path',
    '--engine=auto',
  ];
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
 * Searches with ripgrep at `rg_path`.
 *
 * Contract: never rejects; kills ripgrep once the collector is full or the signal fires; a
 * ripgrep error (a bad pattern) with no results becomes `{ error }` with ripgrep's message.
 */
export function grep_rg(
  rg_path: string,
  search: GrepSearch,
  globs: readonly string[],
): Promise<GrepRun> {
  return new Promise((resolve) => {
    const args = ripgrep_arguments({ ...search, globs });
    const child = child_process_module().spawn(rg_path, args, {
      cwd: search.root,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: search.signal,
    });
    const strip = search.target_relative === '' ? 2 : 0;
    const { collector } = search;
    let pending: Buffer = Buffer.alloc(0);
    let stopped = false;
    let stderr = '';
    let settled = false;
    const finish = (run: GrepRun) => {
      if (settled) return;
      settled = true;
      resolve(run);
    };

    const take_line = (line: Buffer): boolean => {
      if (line.length === 2 && line[0] === 0x2d && line[1] === 0x2d)
        return collector.add_separator();
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
      return line[index] === 0x3a
        ? collector.add_match(path, number, text)
        : collector.add_context(path, number, text);
    };

    child.stdout.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let newline = data.indexOf(10);
      while (newline !== -1) {
        if (!take_line(data.subarray(0, newline))) {
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
      if (!stopped && pending.length > 0) take_line(pending);
      if (search.signal.aborted) return finish({ error: 'aborted' });
      if (stopped || code === 0 || code === 1) return finish({});
      const message = stderr.trim();
      if (collector.matches === 0) {
        return finish({ error: message === '' ? `ripgrep exited with code ${code}` : message });
      }
      return finish({
        skipped: message === '' ? undefined : message.split('\n').slice(0, 5).join('\n'),
      });
    });
  });
}

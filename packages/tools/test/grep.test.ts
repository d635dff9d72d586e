import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { type GrepOptions, grep_search, grep_tool } from '../src/grep/grep.js';
import { compare_walk_order, find_ripgrep } from '../src/grep/grep_rg.js';
import { ToolRegistry } from '../src/registry.js';

let base: string;
let work: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-grep-')));
  work = join(base, 'work');
  const files: Record<string, string | Buffer> = {
    'src/app.ts':
      'import { x } from "./x";\nconst needle = 1;\n\nfunction go() {\n  return needle + 2;\n}\n',
    'src/x.ts': 'export const x = 42;\n// TODO: needle in a comment\n',
    'src/deep/nested/util.ts':
      'one\ntwo\nneedle three\nfour\nfive\nsix\nseven\nneedle eight\nnine\n',
    'src/a.ts': 'NEEDLE upper\n',
    'a.md': 'needle in markdown\n',
    'docs/guide.md': 'line\nneedle docs\nline\n',
    'win.txt': 'needle crlf\r\nnext\r\n',
    'latin1.txt': Buffer.from('caf\xe9 needle\n', 'latin1'),
    'image.bin': Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2, 3])]),
    'node_modules/dep/index.ts': 'needle in dependency\n',
    'build.log': 'needle in log\n',
    'keep.log': 'needle kept by negation\n',
    '.hidden/secret.ts': 'needle hidden\n',
    '.env': 'needle=env\n',
    'lib/.gitignore': 'generated.ts\n',
    'lib/generated.ts': 'needle generated\n',
    'lib/real.ts': 'needle real\n',
    'long.txt': `needle ${'y'.repeat(2_000)}\n`,
    'many.txt': Array.from({ length: 30 }, (_, index) => `needle ${index}`).join('\n'),
    '.gitignore': 'node_modules/\n*.log\n!keep.log\n',
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(work, path, '..'), { recursive: true });
    await writeFile(join(work, path), content);
  }
  await writeFile(
    Buffer.concat([Buffer.from(`${work}/src/odd-`), Buffer.from([0xff]), Buffer.from('.ts')]),
    'needle odd name\n',
  );
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside', 'leak.ts'), 'needle outside\n');
  await symlink(join(base, 'outside'), join(work, 'src', 'outside_link'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const search = (options: Omit<GrepOptions, 'work_dir'>) =>
  grep_search({ work_dir: work, ...options });

const CASES: Array<Omit<GrepOptions, 'work_dir'>> = [
  { pattern: 'needle' },
  { pattern: 'need.e\\s+\\w+' },
  { pattern: '(?i)needle upper' },
  { pattern: '^needle \\d+$' },
  { pattern: 'needle', context: 1 },
  { pattern: 'needle', context: 2, path: 'src' },
  { pattern: 'needle', glob: '*.md' },
  { pattern: 'needle', glob: 'src/**' },
  { pattern: 'needle', glob: '!*.txt' },
  { pattern: 'needle', glob: '*.log' },
  { pattern: 'needle', glob: '*.{ts,md}' },
  { pattern: 'needle', path: 'src/x.ts' },
  { pattern: 'needle', path: '.hidden' },
  // a line that is not UTF-8 is shown with U+FFFD by both (but `.` over such a byte differs:
  // ripgrep's `.` never matches invalid UTF-8, the JS engine sees U+FFFD)
  { pattern: 'caf' },
  { pattern: 'needle', max_matches: 3 },
  { pattern: 'needle', context: 1, max_matches: 4 },
  { pattern: 'no such text anywhere' },
];

describe('grep', () => {
  it('has the packaged ripgrep binary to test against', async () => {
    expect(await find_ripgrep()).toMatch(/rg$/);
  });

  it('finds matches as path:line:text, skipping ignored, hidden, binary files and links', async () => {
    const result = await search({ pattern: 'needle', engine: 'rg' });
    expect(result.ok).toBe(true);
    const lines = result.output.split('\n');
    expect(lines).toContain('src/app.ts:2:const needle = 1;');
    expect(lines).toContain('src/deep/nested/util.ts:8:needle eight');
    expect(lines).toContain('win.txt:1:needle crlf');
    expect(lines).toContain('keep.log:1:needle kept by negation');
    expect(lines).toContain('lib/real.ts:1:needle real');
    expect(lines).toContain('src/odd-\uFFFD.ts:1:needle odd name');
    expect(lines.find((line) => line.startsWith('long.txt:1:'))).toMatch(
      / …\[line cut, 2007 chars\]$/,
    );
    for (const absent of [
      'node_modules',
      'build.log',
      '.hidden',
      '.env',
      'image.bin',
      'generated',
      'outside',
    ]) {
      expect(result.output).not.toContain(absent);
    }
    // path order, folder by folder
    const files = [...new Set(lines.map((line) => line.split(':')[0]))];
    expect(files.indexOf('docs/guide.md')).toBeLessThan(files.indexOf('src/app.ts'));
    expect(files.indexOf('src/deep/nested/util.ts')).toBeLessThan(
      files.indexOf('src/odd-\uFFFD.ts'),
    );
  });

  it.each(CASES)(
    'gives the same output with ripgrep and with the JS engine: %j',
    async (options) => {
      const rg = await search({ ...options, engine: 'rg' });
      const js = await search({ ...options, engine: 'js' });
      expect(rg.engine).toBe('rg');
      expect(js.engine).toBe('js');
      expect(js.output).toBe(rg.output);
      expect(js.ok).toBe(rg.ok);
      expect(js.matches).toBe(rg.matches);
    },
  );

  it('shows context lines and separators', async () => {
    const result = await search({ pattern: 'needle', context: 1, path: 'src/deep' });
    expect(result.output).toBe(
      [
        'src/deep/nested/util.ts-2-two',
        'src/deep/nested/util.ts:3:needle three',
        'src/deep/nested/util.ts-4-four',
        '--',
        'src/deep/nested/util.ts-7-seven',
        'src/deep/nested/util.ts:8:needle eight',
        'src/deep/nested/util.ts-9-nine',
      ].join('\n'),
    );
  });

  it('caps the results and says so', async () => {
    const result = await search({ pattern: 'needle', path: 'many.txt', max_matches: 5 });
    expect(result.output.split('\n').slice(0, 5)).toEqual([
      'many.txt:1:needle 0',
      'many.txt:2:needle 1',
      'many.txt:3:needle 2',
      'many.txt:4:needle 3',
      'many.txt:5:needle 4',
    ]);
    expect(result.output).toContain(
      '(stopped at 5 matching lines; narrow the pattern, path or glob',
    );
  });

  it('reports a bad pattern, a bad path and a missing path as ok:false with both engines', async () => {
    for (const engine of ['rg', 'js'] as const) {
      const bad = await search({ pattern: 'needle(', engine });
      expect(bad.ok, engine).toBe(false);
      expect(bad.output.length).toBeGreaterThan(0);
      expect((await search({ pattern: 'x', path: '../outside', engine })).output).toContain(
        'outside',
      );
      expect((await search({ pattern: 'x', path: 'nope', engine })).output).toContain(
        'does not exist',
      );
      expect((await search({ pattern: 'x', path: 'src/outside_link', engine })).ok).toBe(false);
    }
  });

  it('refuses a FIFO or a device node at once, and skips them inside a folder', async () => {
    const special = join(base, 'special');
    await mkdir(special);
    await writeFile(join(special, 'plain.txt'), 'needle plain\n');
    execFileSync('mkfifo', [join(special, 'pipe')]);
    // a character device needs root to make; CI runs as root
    const root = process.getuid?.() === 0;
    if (root) execFileSync('mknod', [join(special, 'zero'), 'c', '1', '5']);
    const in_special = (options: Omit<GrepOptions, 'work_dir'>) =>
      grep_search({ work_dir: special, ...options });
    for (const engine of ['rg', 'js'] as const) {
      const started = Date.now();
      const fifo = await in_special({ pattern: 'x', path: 'pipe', engine });
      expect(fifo.ok, engine).toBe(false);
      expect(fifo.output).toBe(
        "'pipe' is a FIFO, not a regular file; grep searches files and folders.",
      );
      if (root) {
        const device = await in_special({ pattern: 'x', path: 'zero', engine });
        expect(device.ok, engine).toBe(false);
        expect(device.output).toContain("'zero' is a device, not a regular file");
      }
      const folder = await in_special({ pattern: 'needle', engine });
      expect(folder, engine).toMatchObject({ ok: true, output: 'plain.txt:1:needle plain' });
      expect(Date.now() - started).toBeLessThan(5_000);
    }
  }, 20_000);

  it('runs as a tool through the executor, and stops when aborted', async () => {
    const registry = new ToolRegistry();
    registry.register(grep_tool);
    const executor = new ToolExecutor(registry, { work_dir: work });
    const result = await executor.execute('grep', {
      pattern: 'needle',
      glob: '*.md',
      context: '0',
    });
    expect(result).toMatchObject({
      ok: true,
      output: 'a.md:1:needle in markdown\ndocs/guide.md:2:needle docs',
    });
    const aborted = await executor.execute(
      'grep',
      { pattern: 'needle' },
      { signal: AbortSignal.abort() },
    );
    expect(aborted).toMatchObject({ ok: false, error: 'aborted' });
  });
});

describe('grep over many files with ripgrep in parallel', () => {
  let many: string;

  beforeAll(async () => {
    many = await realpath(await mkdtemp(join(tmpdir(), 'lich-grep-many-')));
    for (let folder = 0; folder < 12; folder++) {
      for (let file = 0; file < 25; file++) {
        const name = join(many, `d${folder}`, file % 2 === 0 ? `f-${file}.txt` : `f/${file}.txt`);
        await mkdir(join(name, '..'), { recursive: true });
        await writeFile(name, `one\nneedle ${folder}/${file}\ntwo\nneedle again\nthree\n`);
      }
    }
  });

  afterAll(async () => {
    await rm(many, { recursive: true, force: true });
  });

  it.each([
    { pattern: 'needle' },
    { pattern: 'needle', context: 1 },
    { pattern: 'needle', max_matches: 50 },
  ])('prints files in walk order, as the JS engine does: %j', async (options) => {
    const rg = await grep_search({ work_dir: many, ...options, engine: 'rg' });
    const js = await grep_search({ work_dir: many, ...options, engine: 'js' });
    expect(rg.ok).toBe(true);
    expect(rg.output).toBe(js.output);
  });
});

describe('compare_walk_order', () => {
  it('orders folder by folder, names by code units', () => {
    const paths = ['a-c', 'a/b', 'B', 'a/a/z', 'a', 'ab'];
    expect([...paths].sort(compare_walk_order)).toEqual(['B', 'a', 'a/a/z', 'a/b', 'a-c', 'ab']);
  });
});

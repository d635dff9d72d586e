import { execFileSync } from 'node:child_process';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from './executor.js';
import { edit_file_tool } from './fs/edit_file.js';
import { glob_tool } from './fs/glob.js';
import { list_dir_tool } from './fs/list_dir.js';
import { read_file_tool } from './fs/read_file.js';
import { write_file_tool } from './fs/write_file.js';
import { ToolRegistry } from './registry.js';

let base: string;
let work: string;
let executor: ToolExecutor;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-file-tools-')));
  work = join(base, 'work');
  await mkdir(work);
  const registry = new ToolRegistry();
  for (const tool of [read_file_tool, write_file_tool, edit_file_tool, list_dir_tool, glob_tool]) {
    registry.register(tool);
  }
  executor = new ToolExecutor(registry, { work_dir: work });
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const run = (name: string, args: unknown) => executor.execute(name, args);

describe('read_file', () => {
  it('returns numbered lines, with offset and limit, and says how to go on', async () => {
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`);
    await writeFile(join(work, 'ten.txt'), `${lines.join('\n')}\n`);
    const all = await run('read_file', { path: 'ten.txt' });
    expect(all.ok).toBe(true);
    expect(all.output.split('\n')[0]).toBe('     1\tline 1');
    expect(all.output.split('\n')).toHaveLength(10);
    const part = await run('read_file', { path: 'ten.txt', offset: '4', limit: 2 });
    expect(part.output).toBe(
      '     4\tline 4\n     5\tline 5\n(lines 4-5 shown; the file goes on: call read_file with offset=6 for more)',
    );
    const tail = await run('read_file', { path: 'ten.txt', offset: 9 });
    expect(tail.output).toBe('     9\tline 9\n    10\tline 10');
  });

  it('handles a last line without newline, CRLF, an empty file and an offset past the end', async () => {
    await writeFile(join(work, 'crlf.txt'), 'a\r\nb\r\nc');
    expect((await run('read_file', { path: 'crlf.txt' })).output).toBe(
      '     1\ta\n     2\tb\n     3\tc',
    );
    await writeFile(join(work, 'empty.txt'), '');
    expect((await run('read_file', { path: 'empty.txt' })).output).toBe('(empty file)');
    const past = await run('read_file', { path: 'crlf.txt', offset: 10 });
    expect(past).toMatchObject({ ok: false });
    expect(past.output).toContain('offset 10 is past the end');
    expect(past.output).toContain('has 3 lines');
  });

  it('cuts very long lines', async () => {
    await writeFile(join(work, 'long.txt'), `${'x'.repeat(50_000)}\nshort\n`);
    const result = await run('read_file', { path: 'long.txt' });
    const [first, second] = result.output.split('\n');
    expect(first).toMatch(/^ {5}1\tx{2000} …\[line cut at 2000 characters\]$/);
    expect(second).toBe('     2\tshort');
  });

  it('refuses a binary file, a folder, a missing file and a path outside', async () => {
    await writeFile(join(work, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    const binary = await run('read_file', { path: 'image.png' });
    expect(binary).toMatchObject({ ok: false });
    expect(binary.output).toContain('looks like a binary file');
    await mkdir(join(work, 'folder'));
    const folder = await run('read_file', { path: 'folder' });
    expect(folder).toMatchObject({ ok: false });
    expect(folder.output).toContain("'folder' is a folder, not a file; use list_dir");
    expect((await run('read_file', { path: 'missing.txt' })).output).toContain('does not exist');
    expect((await run('read_file', { path: '../../../etc/passwd' })).output).toContain('outside');
    expect((await run('read_file', { path: 'a\0b' })).output).toContain('NUL byte');
    expect((await run('read_file', { path: 'x/'.repeat(5_000) })).output).toContain('10000 bytes');
  });

  it('reads a name in the work dir only as the file it is: links are left to the guard', async () => {
    await writeFile(join(base, 'secret.txt'), 'outside\n');
    await writeFile(join(work, 'inside.txt'), 'inside\n');
    await symlink(join(base, 'secret.txt'), join(work, 'out_link'));
    await symlink('inside.txt', join(work, 'in_link'));
    const out = await run('read_file', { path: 'out_link' });
    expect(out).toMatchObject({ ok: false });
    expect(out.output).toContain('outside the work dir');
    expect(out.output).not.toContain('outside\n');
    expect(await run('read_file', { path: 'in_link' })).toMatchObject({
      ok: true,
      output: '     1\tinside',
    });
    execFileSync('mkfifo', [join(work, 'pipe')]);
    const pipe = await run('read_file', { path: 'pipe' });
    expect(pipe).toMatchObject({ ok: false });
    expect(pipe.output).toContain('not a regular file');
    // a work dir named through a link: the file is still found at its real place
    await symlink(work, join(base, 'work_link'));
    const linked = new ToolExecutor(executor.registry, { work_dir: join(base, 'work_link') });
    expect(await linked.execute('read_file', { path: 'inside.txt' })).toMatchObject({
      ok: true,
      output: '     1\tinside',
    });
  });

  it('reads on past full chunks to the last line of a file of several megabytes', async () => {
    // 40 000 lines of 100 bytes: four 1 MB reads come back full, the fifth short (the end)
    const line = (n: number) => `row ${String(n).padStart(6, '0')} ${'x'.repeat(88)}`;
    const rows = Array.from({ length: 40_000 }, (_, index) => line(index + 1));
    await writeFile(join(work, 'rows.txt'), `${rows.join('\n')}\n`);
    const end = await run('read_file', { path: 'rows.txt', offset: 39_999, limit: 10 });
    expect(end.output).toBe(` 39999\t${line(39_999)}\n 40000\t${line(40_000)}`);
    const past = await run('read_file', { path: 'rows.txt', offset: 40_001 });
    expect(past.output).toMatch(/past the end of 'rows.txt', which has 40000 lines/);
  });

  it('keeps a line whole across reads, a character split between them included', async () => {
    // the first line ends 10 bytes short of the 1 MB read; 'ü' is two bytes, so the read ends
    // inside one of them
    const first = 'x'.repeat(1024 * 1024 - 11);
    const umlauts = 'ü'.repeat(20);
    await writeFile(join(work, 'split.txt'), `${first}\n${umlauts}\nlast`);
    const result = await run('read_file', { path: 'split.txt', offset: 2 });
    expect(result.output).toBe(`     2\t${umlauts}\n     3\tlast`);
    // a NUL past what a cut line keeps is not looked at
    await writeFile(join(work, 'cut.txt'), `${'y'.repeat(9_000)}\u0000z\nafter\n`);
    const cut = await run('read_file', { path: 'cut.txt' });
    expect(cut.output).toMatch(/^ {5}1\ty{2000} …\[line cut at 2000 characters\]\n {5}2\tafter$/);
  });

  it('reads a slice of a 2 GB sparse file quickly, by streaming', async () => {
    const big = join(work, 'big.log');
    // text first (past the 8 KB binary sniff), then 2 GB of holes
    const head = Array.from({ length: 2_000 }, (_, index) => `entry ${index + 1}`).join('\n');
    await writeFile(big, `${head}\n`);
    await truncate(big, 2 * 1024 ** 3);
    const started = performance.now();
    const result = await run('read_file', { path: 'big.log', offset: 50, limit: 3 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.ok).toBe(true);
    expect(result.output.split('\n').slice(0, 3)).toEqual([
      '    50\tentry 50',
      '    51\tentry 51',
      '    52\tentry 52',
    ]);
    expect(result.output).toContain('offset=53');
    // reading on into the holes stops at the first line of binary data instead of scanning 2 GB
    const edge = await run('read_file', { path: 'big.log', offset: 1_999, limit: 10 });
    expect(edge.output).toBe(
      '  1999\tentry 1999\n  2000\tentry 2000\n(line 2001 holds binary data; stopped before it)',
    );
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(process.memoryUsage().rss).toBeLessThan(1024 ** 3);
  });

  it('stops a long scan at the abort, between chunks', async () => {
    // 3 MB of text: more than one chunk, and an offset past the end makes read_file scan it all
    const row = `${'x'.repeat(99)}\n`;
    await writeFile(join(work, 'long.log'), row.repeat(30_000));
    const controller = new AbortController();
    controller.abort(new Error('stopped by the user'));
    const scan = read_file_tool.execute({ path: 'long.log', offset: 1_000_000 }, {
      work_dir: work,
      signal: controller.signal,
    } as Parameters<typeof read_file_tool.execute>[1]);
    await expect(scan).rejects.toThrow('stopped by the user');
    // without the abort the same scan reaches the end and says so
    const done = await run('read_file', { path: 'long.log', offset: 1_000_000 });
    expect(done.output).toContain('which has 30000 lines');
  });

  it('stops before the output limit and says where to continue', async () => {
    const small = new ToolExecutor(executor.registry, { work_dir: work, max_output_chars: 2_000 });
    const lines = Array.from({ length: 500 }, (_, index) => `row ${index + 1} ${'-'.repeat(40)}`);
    await writeFile(join(work, 'rows.txt'), lines.join('\n'));
    const result = await small.execute('read_file', { path: 'rows.txt' });
    expect(result.truncated).toBeUndefined();
    expect(result.output).toMatch(
      /output limit reached after line (\d+); call read_file with offset=\d+/,
    );
  });
});

describe('write_file', () => {
  it('creates parent folders and writes atomically, leaving no temp file', async () => {
    const result = await run('write_file', { path: 'a/b/new.txt', content: 'one\ntwo\n' });
    expect(result).toMatchObject({ ok: true, output: 'Created a/b/new.txt (8 bytes, 2 lines).' });
    expect(await readFile(join(work, 'a/b/new.txt'), 'utf8')).toBe('one\ntwo\n');
    const again = await run('write_file', { path: 'a/b/new.txt', content: 'three' });
    expect(again.output).toBe('Replaced a/b/new.txt (5 bytes, 1 line).');
    expect(await readdir(join(work, 'a/b'))).toEqual(['new.txt']);
  });

  it('refuses .git/, .lich/, paths outside and links out, writing nothing', async () => {
    await mkdir(join(base, 'outside'));
    await symlink(join(base, 'outside'), join(work, 'out'));
    for (const path of [
      '.git/hooks/pre-commit',
      '.lich/config.json',
      '../escape.txt',
      'out/x.txt',
      '/tmp/x.txt',
    ]) {
      const result = await run('write_file', { path, content: 'x' });
      expect(result.ok, path).toBe(false);
    }
    expect(await readdir(join(base, 'outside'))).toEqual([]);
    expect((await readdir(work)).sort()).toEqual(['out']);
  });
});

describe('edit_file', () => {
  it('replaces a unique match and returns a unified diff', async () => {
    await writeFile(join(work, 'a.ts'), 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    const result = await run('edit_file', {
      path: 'a.ts',
      old_text: 'const b = 2;',
      new_text: 'const b = 20;',
    });
    expect(result.ok).toBe(true);
    expect(result.output).toContain('Edited a.ts: 1 replacement.');
    expect(result.output).toContain('--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@');
    expect(result.output).toContain('-const b = 2;\n+const b = 20;');
    expect(await readFile(join(work, 'a.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 20;\nconst c = 3;\n',
    );
  });

  it('refuses two matches without replace_all, naming the lines, and writes nothing', async () => {
    const original = 'x = 1\ny = 2\nx = 1\n';
    await writeFile(join(work, 'twice.py'), original);
    const result = await run('edit_file', {
      path: 'twice.py',
      old_text: 'x = 1',
      new_text: 'x = 9',
    });
    expect(result).toMatchObject({ ok: false });
    expect(result.output).toContain('occurs 2 times');
    expect(result.output).toContain('lines 1, 3');
    expect(await readFile(join(work, 'twice.py'), 'utf8')).toBe(original);
    const all = await run('edit_file', {
      path: 'twice.py',
      old_text: 'x = 1',
      new_text: 'x = 9',
      replace_all: 'true',
    });
    expect(all.output).toContain('2 replacements');
    expect(await readFile(join(work, 'twice.py'), 'utf8')).toBe('x = 9\ny = 2\nx = 9\n');
  });

  it('refuses a missing match with a whitespace hint, an empty old_text and a no-op', async () => {
    await writeFile(join(work, 'f.txt'), 'if (a) {\n    call();\n}\n');
    const missing = await run('edit_file', {
      path: 'f.txt',
      old_text: 'if (a) {\n  call();',
      new_text: 'x',
    });
    expect(missing).toMatchObject({ ok: false });
    expect(missing.output).toContain('not found');
    expect(missing.output).toContain('ignoring whitespace, at line 1');
    expect((await run('edit_file', { path: 'f.txt', old_text: '', new_text: 'x' })).ok).toBe(false);
    expect((await run('edit_file', { path: 'f.txt', old_text: 'a', new_text: 'a' })).ok).toBe(
      false,
    );
  });

  it('refuses a binary file and a non-UTF-8 file with nothing written', async () => {
    const binary = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 0x61, 0x62]);
    await writeFile(join(work, 'prog.bin'), binary);
    const before = await stat(join(work, 'prog.bin'));
    const result = await run('edit_file', { path: 'prog.bin', old_text: 'ab', new_text: 'cd' });
    expect(result).toMatchObject({ ok: false });
    expect(result.output).toContain('binary file');
    expect(await readFile(join(work, 'prog.bin'))).toEqual(binary);
    expect((await stat(join(work, 'prog.bin'))).mtimeMs).toBe(before.mtimeMs);
    const latin1 = Buffer.from('caf\xe9 au lait\n', 'latin1');
    await writeFile(join(work, 'latin1.txt'), latin1);
    const text = await run('edit_file', { path: 'latin1.txt', old_text: 'lait', new_text: 'milk' });
    expect(text.output).toContain('not valid UTF-8');
    expect(await readFile(join(work, 'latin1.txt'))).toEqual(latin1);
    expect((await readdir(work)).sort()).toEqual(['latin1.txt', 'prog.bin']);
  });

  it('matches LF text against a CRLF file, and takes $ patterns literally', async () => {
    await writeFile(join(work, 'win.txt'), 'one\r\ntwo\r\nthree\r\n');
    const result = await run('edit_file', {
      path: 'win.txt',
      old_text: 'one\ntwo',
      new_text: 'uno\n$&$1',
    });
    expect(result.ok).toBe(true);
    expect(await readFile(join(work, 'win.txt'), 'utf8')).toBe('uno\r\n$&$1\r\nthree\r\n');
  });

  it('refuses a path under .git/ before reading it', async () => {
    await mkdir(join(work, '.git'));
    await writeFile(join(work, '.git', 'config'), '[core]\n');
    const result = await run('edit_file', {
      path: '.git/config',
      old_text: '[core]',
      new_text: 'x',
    });
    expect(result.output).toContain('may not write');
  });
});

describe('list_dir', () => {
  it('lists folders, files with sizes, links and non-UTF-8 names', async () => {
    await mkdir(join(work, 'src'));
    await writeFile(join(work, 'README.md'), 'x'.repeat(2_048));
    await symlink('README.md', join(work, 'link.md'));
    await writeFile(Buffer.concat([Buffer.from(`${work}/odd-`), Buffer.from([0xff])]), '');
    const result = await run('list_dir', {});
    expect(result.ok).toBe(true);
    expect(result.output.split('\n')).toEqual([
      'README.md  (2.0 KB)',
      'link.md -> README.md',
      'odd-\uFFFD [name is not valid UTF-8]  (0 B)',
      'src/',
    ]);
    expect((await run('list_dir', { path: 'src' })).output).toBe('(src is empty)');
  });

  it('refuses a file, a missing folder and a path outside', async () => {
    await writeFile(join(work, 'f.txt'), '');
    expect((await run('list_dir', { path: 'f.txt' })).output).toContain('use read_file');
    expect((await run('list_dir', { path: 'nope' })).output).toContain('does not exist');
    expect((await run('list_dir', { path: '..' })).ok).toBe(false);
  });
});

describe('glob', () => {
  beforeEach(async () => {
    await mkdir(join(work, 'src/lib'), { recursive: true });
    await mkdir(join(work, 'node_modules/pkg'), { recursive: true });
    await mkdir(join(work, 'dist'), { recursive: true });
    await mkdir(join(work, '.github'), { recursive: true });
    await writeFile(join(work, '.gitignore'), 'node_modules/\ndist\n*.log\n!keep.log\n');
    await writeFile(join(work, 'src/lib/.gitignore'), 'generated.ts\n');
    for (const path of [
      'src/a.ts',
      'src/lib/b.ts',
      'src/lib/generated.ts',
      'node_modules/pkg/index.ts',
      'dist/out.ts',
      'debug.log',
      'keep.log',
      '.github/ci.yml',
      '.hidden.ts',
    ]) {
      await writeFile(join(work, path), '');
    }
  });

  it('finds files, relative to the work dir, respecting .gitignore (nested, negated)', async () => {
    expect((await run('glob', { pattern: '**/*.ts' })).output).toBe('src/a.ts\nsrc/lib/b.ts');
    expect((await run('glob', { pattern: '*.log' })).output).toBe('keep.log');
    expect((await run('glob', { pattern: '*.ts', path: 'src/lib' })).output).toBe('src/lib/b.ts');
    expect((await run('glob', { pattern: '.github/*.yml' })).output).toBe('.github/ci.yml');
    expect((await run('glob', { pattern: '**/*.rs' })).output).toBe('No files match **/*.rs in ..');
  });

  it('refuses patterns that leave the folder and paths outside', async () => {
    expect((await run('glob', { pattern: '../*' })).ok).toBe(false);
    expect((await run('glob', { pattern: '/etc/*' })).ok).toBe(false);
    expect((await run('glob', { pattern: '*', path: '../..' })).ok).toBe(false);
  });

  it('returns files inside folders whose names are not UTF-8, marked as list_dir marks them', async () => {
    const raw = (...parts: (string | number[])[]) =>
      Buffer.concat(
        parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))),
      );
    await mkdir(raw(work, '/src/bad-', [0xff]));
    await writeFile(raw(work, '/src/bad-', [0xff], '/inner.ts'), '');
    await writeFile(raw(work, '/src/odd-', [0xfe], '.ts'), '');
    const result = await run('glob', { pattern: '**/*.ts' });
    expect(result.output.split('\n')).toEqual([
      'src/a.ts',
      'src/bad-\uFFFD/inner.ts [name is not valid UTF-8]',
      'src/lib/b.ts',
      'src/odd-\uFFFD.ts [name is not valid UTF-8]',
    ]);
    const listed = await run('list_dir', { path: 'src' });
    expect(listed.output).toContain('bad-\uFFFD [name is not valid UTF-8]/');
  });

  it('does not follow links out of the work dir', async () => {
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside', 'secret.ts'), '');
    await symlink(join(base, 'outside'), join(work, 'src', 'escape'));
    expect((await run('glob', { pattern: '**/secret.ts' })).output).toContain('No files match');
  });
});

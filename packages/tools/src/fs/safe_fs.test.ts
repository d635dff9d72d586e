import { execFileSync } from 'node:child_process';
import {
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathGuardError } from './guard.js';
import { open_in_work_dir, stat_in_work_dir, write_file_atomic } from './safe_fs.js';

let base: string;
let work: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-safe-fs-')));
  work = join(base, 'work');
  outside = join(base, 'outside');
  await mkdir(work);
  await mkdir(outside);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('write_file_atomic', () => {
  it('creates parent folders and the file, leaving no temp file', async () => {
    const result = await write_file_atomic(work, 'a/b/c.txt', 'hello\n');
    expect(result).toEqual({
      path: join(work, 'a/b/c.txt'),
      relative: 'a/b/c.txt',
      created: true,
      bytes: 6,
    });
    expect(await readFile(join(work, 'a/b/c.txt'), 'utf8')).toBe('hello\n');
    expect(await readdir(join(work, 'a/b'))).toEqual(['c.txt']);
  });

  it('replaces an existing file and keeps its permission bits', async () => {
    const target = join(work, 'run.sh');
    await writeFile(target, 'old');
    await chmod(target, 0o750);
    const result = await write_file_atomic(work, 'run.sh', 'new');
    expect(result.created).toBe(false);
    expect(await readFile(target, 'utf8')).toBe('new');
    expect((await stat(target)).mode & 0o777).toBe(0o750);
  });

  it('refuses a folder as target, a path outside and .git/, writing nothing', async () => {
    await mkdir(join(work, 'dir'));
    await expect(write_file_atomic(work, 'dir', 'x')).rejects.toThrow(/is a folder/);
    await expect(write_file_atomic(work, '../outside/x.txt', 'x')).rejects.toBeInstanceOf(
      PathGuardError,
    );
    await expect(write_file_atomic(work, '.git/config', 'x')).rejects.toThrow(/may not write/);
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(work)).toEqual(['dir']);
  });

  it('is atomic: a concurrent reader sees the old content or the new, never a mix', async () => {
    const old_content = 'a'.repeat(1_000_000);
    const new_content = 'b'.repeat(1_000_000);
    await writeFile(join(work, 'big.txt'), old_content);
    let writing = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (writing) {
        const text = await readFile(join(work, 'big.txt'), 'utf8');
        seen.add(text === old_content ? 'old' : text === new_content ? 'new' : 'torn');
      }
    })();
    for (let round = 0; round < 10; round++) {
      await write_file_atomic(work, 'big.txt', round % 2 === 0 ? new_content : old_content);
    }
    writing = false;
    await reader;
    expect(seen.has('torn')).toBe(false);
    expect(await readdir(work)).toEqual(['big.txt']);
  });

  it('replaces a symbolic link inside instead of writing through it', async () => {
    // a link that points inside is resolved by the guard: the real file is replaced
    await writeFile(join(work, 'real.txt'), 'old');
    await symlink('real.txt', join(work, 'alias.txt'));
    await write_file_atomic(work, 'alias.txt', 'new');
    expect(await readFile(join(work, 'real.txt'), 'utf8')).toBe('new');
  });

  it('stops before the rename when aborted, leaving no temp file', async () => {
    await expect(
      write_file_atomic(work, 'x.txt', 'data', { signal: AbortSignal.abort() }),
    ).rejects.toThrow();
    expect(await readdir(work)).toEqual([]);
  });

  it('never writes outside while a folder is swapped for a link to outside', async () => {
    await mkdir(join(work, 'sub'));
    let swapping = true;
    const swapper = (async () => {
      let flip = false;
      while (swapping) {
        try {
          if (flip) {
            await rm(join(work, 'sub'), { force: true });
            await mkdir(join(work, 'sub'));
          } else {
            await rename(join(work, 'sub'), join(work, `parked-${Date.now()}-${Math.random()}`));
            await symlink(outside, join(work, 'sub'));
          }
        } catch {
          // the writer moved things under us: keep swapping
        }
        flip = !flip;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let round = 0; round < 150; round++) {
      await write_file_atomic(work, 'sub/file.txt', `round ${round}`).catch(() => undefined);
    }
    swapping = false;
    await swapper;
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('open_in_work_dir', () => {
  it('opens a regular file inside', async () => {
    await writeFile(join(work, 'a.txt'), 'abc');
    const opened = await open_in_work_dir(work, 'a.txt');
    try {
      expect(opened.size).toBe(3);
      expect(opened.guarded.relative).toBe('a.txt');
    } finally {
      await opened.handle.close();
    }
  });

  it('refuses a folder (naming list_dir), a missing file and a link out', async () => {
    await mkdir(join(work, 'dir'));
    await expect(open_in_work_dir(work, 'dir')).rejects.toThrow(
      /is a folder, not a file; use list_dir/,
    );
    await expect(open_in_work_dir(work, 'nope.txt')).rejects.toThrow(/does not exist/);
    await writeFile(join(outside, 'secret'), 's');
    await symlink(join(outside, 'secret'), join(work, 'leak'));
    await expect(open_in_work_dir(work, 'leak')).rejects.toThrow(/outside the work dir/);
  });

  it('refuses a FIFO without blocking', async () => {
    execFileSync('mkfifo', [join(work, 'pipe')]);
    await expect(open_in_work_dir(work, 'pipe')).rejects.toThrow(/not a regular file/);
  });
});

describe('stat_in_work_dir', () => {
  it('stats the work dir for an undefined or empty path, shown as .', async () => {
    for (const path of [undefined, '']) {
      const found = stat_in_work_dir(work, path);
      expect(found.shown).toBe('.');
      expect(found.guarded.path).toBe(work);
      expect(found.stats.isDirectory()).toBe(true);
    }
  });

  it('stats a file through a link that stays inside', async () => {
    await writeFile(join(work, 'a.txt'), 'abc');
    await symlink('a.txt', join(work, 'link'));
    const found = stat_in_work_dir(work, 'link');
    expect(found.shown).toBe('link');
    expect(found.guarded.path).toBe(join(work, 'a.txt'));
    expect(found.stats.size).toBe(3);
  });

  it('refuses a missing path and a path the guard refuses', async () => {
    expect(() => stat_in_work_dir(work, 'nope')).toThrow(
      new PathGuardError("'nope' does not exist"),
    );
    expect(() => stat_in_work_dir(work, '../outside')).toThrow(PathGuardError);
  });
});

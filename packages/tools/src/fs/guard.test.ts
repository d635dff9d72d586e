import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PATH_BYTES, resolve_in_work_dir } from './guard.js';

let base: string;
let work: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-guard-')));
  work = join(base, 'proj');
  await mkdir(join(work, 'src'), { recursive: true });
  await writeFile(join(work, 'src', 'a.ts'), 'export {};\n');
  await mkdir(join(base, 'proj-evil'));
  await writeFile(join(base, 'proj-evil', 'secret.txt'), 'secret');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refused(path: string, for_write = false): Promise<string> {
  const result = await resolve_in_work_dir(work, path, { for_write });
  expect(result.ok, `expected '${path.slice(0, 80)}' to be refused`).toBe(false);
  return result.ok ? '' : result.error;
}

async function accepted(path: string, for_write = false) {
  const result = await resolve_in_work_dir(work, path, { for_write });
  if (!result.ok) throw new Error(`expected '${path}' to be accepted, got: ${result.error}`);
  return result;
}

describe('resolve_in_work_dir', () => {
  it('resolves relative paths inside, existing or not', async () => {
    expect(await accepted('src/a.ts')).toMatchObject({
      path: join(work, 'src', 'a.ts'),
      relative: join('src', 'a.ts'),
      work_dir: work,
      exists: true,
    });
    expect(await accepted('src/new/deep/file.ts')).toMatchObject({
      path: join(work, 'src/new/deep/file.ts'),
      exists: false,
    });
    expect(await accepted('')).toMatchObject({ path: work, relative: '' });
    expect(await accepted('./src/../src/a.ts')).toMatchObject({ path: join(work, 'src/a.ts') });
  });

  it('refuses .. escapes', async () => {
    expect(await refused('..')).toMatch(/outside the work dir/);
    expect(await refused('../proj-evil/secret.txt')).toMatch(/outside the work dir/);
    expect(await refused('src/../../proj/../../x')).toMatch(/outside/);
  });

  it('refuses absolute paths outside and accepts absolute paths inside', async () => {
    expect(await refused('/etc/passwd')).toMatch(/outside the work dir/);
    expect((await accepted(join(work, 'src/a.ts'))).relative).toBe(join('src', 'a.ts'));
  });

  it('refuses the sibling-prefix trap', async () => {
    expect(await refused(join(base, 'proj-evil', 'secret.txt'))).toMatch(/outside/);
    expect(await refused(`${work}-evil/secret.txt`)).toMatch(/outside/);
    expect(await refused('../proj-evil')).toMatch(/outside/);
  });

  it('accepts a work dir given through a symbolic link, and absolute paths written either way', async () => {
    const via = join(base, 'via');
    await symlink(work, via);
    const through = await resolve_in_work_dir(via, join(via, 'src/a.ts'));
    expect(through).toMatchObject({ ok: true, path: join(work, 'src/a.ts') });
    const real = await resolve_in_work_dir(via, join(work, 'src/a.ts'));
    expect(real).toMatchObject({ ok: true, path: join(work, 'src/a.ts') });
  });

  it('refuses a symbolic link to /etc, what lies under it, and deep non-existent paths under it', async () => {
    await symlink('/etc', join(work, 'etc_link'));
    expect(await refused('etc_link')).toMatch(/resolves to \/etc through the symbolic link/);
    expect(await refused('etc_link/passwd')).toMatch(/outside the work dir/);
    expect(await refused('etc_link/no/such/deep/file.txt', true)).toMatch(/outside/);
    expect(await refused('src/../etc_link/hostname')).toMatch(/outside/);
  });

  it('refuses relative links that lead out, and dangling links that point out', async () => {
    await symlink('../proj-evil', join(work, 'evil'));
    expect(await refused('evil/secret.txt')).toMatch(/outside/);
    await symlink(join(base, 'proj-evil', 'not-yet.txt'), join(work, 'dangling'));
    expect(await refused('dangling', true)).toMatch(/outside/);
    await symlink('/nonexistent-lich-dir/x/y', join(work, 'dangling_deep'));
    expect(await refused('dangling_deep/z', true)).toMatch(/outside/);
  });

  it('follows links that stay inside, to their real path', async () => {
    await symlink('src', join(work, 'source'));
    await symlink(join(work, 'src', 'a.ts'), join(work, 'src', 'b.ts'));
    expect((await accepted('source/a.ts')).path).toBe(join(work, 'src/a.ts'));
    expect((await accepted('src/b.ts')).path).toBe(join(work, 'src/a.ts'));
    // a link whose `..` leaves and comes back ends inside: accepted
    await symlink(`../../${join('proj', 'src')}`, join(work, 'src', 'round'));
    expect((await accepted('src/round/a.ts')).path).toBe(join(work, 'src/a.ts'));
  });

  it('refuses circular links', async () => {
    await symlink('loop_b', join(work, 'loop_a'));
    await symlink('loop_a', join(work, 'loop_b'));
    await symlink('self', join(work, 'self'));
    expect(await refused('loop_a')).toMatch(/circular/);
    expect(await refused('loop_b/deeper/file', true)).toMatch(/circular/);
    expect(await refused('self')).toMatch(/circular/);
  });

  it('refuses NUL bytes and absurdly long paths with a clear error', async () => {
    expect(await refused('src/a.ts\0.png')).toBe('the path contains a NUL byte');
    const long = 'a/'.repeat(5_000);
    expect(await refused(long)).toBe(
      `the path is 10000 bytes long; the limit is ${MAX_PATH_BYTES}`,
    );
    expect(await refused(`${'x'.repeat(300)}/file`, true)).toMatch(/too long/);
  });

  it('refuses a path that treats a file as a folder', async () => {
    expect(await refused('src/a.ts/inner', true)).toMatch(/is a file, not a folder/);
  });

  it('handles names that are not UTF-8', async () => {
    const raw = Buffer.concat([
      Buffer.from(`${work}/bad-`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('.txt'),
    ]);
    await writeFile(raw, 'x');
    // the model can only send the lossy name; it is not that file, and nothing breaks
    const lossy = await accepted('bad-\uFFFD\uFFFD.txt');
    expect(lossy.exists).toBe(false);
    const bad_target = Buffer.concat([Buffer.from('/etc/'), Buffer.from([0xff])]);
    await symlink(bad_target, join(work, 'bad_link'));
    expect(await refused('bad_link')).toMatch(/not UTF-8/);
  });

  it('refuses writes under .git/ and .lich/ and to the work dir itself, but allows reads', async () => {
    for (const path of [
      '.git/config',
      '.git',
      'sub/.git/hooks/pre-commit',
      '.lich/sessions/x.jsonl',
      '.GIT/HEAD',
    ]) {
      expect(await refused(path, true)).toMatch(/may not write/);
    }
    expect(await refused('', true)).toMatch(/work dir itself/);
    expect((await accepted('.gitignore', true)).relative).toBe('.gitignore');
    expect((await accepted('.git/config')).relative).toBe(join('.git', 'config'));
  });

  it('reports a work dir that does not exist', async () => {
    const result = await resolve_in_work_dir(join(base, 'missing'), 'a.txt');
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.error).toMatch(/cannot be used/);
  });
});

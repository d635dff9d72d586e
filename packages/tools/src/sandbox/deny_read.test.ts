import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DENY_READ, denied_by, deny_read_paths } from './deny_read.js';

let base: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-deny-read-')));
  await mkdir(join(base, 'secrets'));
  await writeFile(join(base, 'token.txt'), 'x');
  await symlink(join(base, 'secrets'), join(base, 'link'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('deny_read_paths', () => {
  it('lists the documented credential stores', () => {
    for (const entry of [
      '~/.ssh',
      '~/.aws',
      '~/.netrc',
      '~/.docker',
      '~/.config/gh',
      '~/.config/lich',
      '~/.bash_history',
    ]) {
      expect(DEFAULT_DENY_READ).toContain(entry);
    }
  });

  it('returns existing entries as real paths, follows links, and lifts allow_read', () => {
    const work = join(base, 'work');
    const found = deny_read_paths(
      {
        deny_read: [join(base, 'link'), join(base, 'token.txt'), join(base, 'missing')],
        allow_read: [],
      },
      work,
      {},
    );
    const mine = found.filter((entry) => entry.path.startsWith(base));
    expect(mine).toEqual([
      { entry: join(base, 'link'), path: join(base, 'secrets'), kind: 'dir' },
      { entry: join(base, 'token.txt'), path: join(base, 'token.txt'), kind: 'file' },
    ]);
    expect(denied_by(join(base, 'secrets', 'a'), found)?.entry).toBe(join(base, 'link'));
    const lifted = deny_read_paths(
      { deny_read: [join(base, 'link'), join(base, 'token.txt')], allow_read: [base] },
      work,
      {},
    );
    expect(lifted.filter((entry) => entry.path.startsWith(base))).toEqual([]);
  });

  it('never masks a folder that holds the work dir', () => {
    const found = deny_read_paths({ deny_read: [base], allow_read: [] }, join(base, 'secrets'), {});
    expect(found.some((entry) => entry.path === base)).toBe(false);
    expect(found.some((entry) => entry.path === homedir())).toBe(false);
  });
});

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoint_store.js';
import { FolderWatch, MAX_WATCHED_FOLDERS, watch_budget } from './folder_watch.js';

const linux = process.platform === 'linux';
let root: string;
let work: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lich-folder-watch-'));
  work = join(root, 'work');
  mkdirSync(work);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function write(path: string, content: string): void {
  const full = join(work, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
}

function ctime(rel: string): number {
  return lstatSync(rel === '' ? work : join(work, rel)).ctimeMs;
}

/** The tree a store that reads everything records now. */
async function full_tree(): Promise<string> {
  const store = new CheckpointStore({
    work_dir: work,
    store_dir: mkdtempSync(join(root, 'full-')),
    racy_window_ms: 0,
  });
  return (await store.create()).tree;
}

describe('watch_budget', () => {
  it("takes a quarter of the user's inotify watches, at most 10,000", () => {
    expect(watch_budget(() => '8192\n')).toBe(2048);
    expect(watch_budget(() => '1048576')).toBe(MAX_WATCHED_FOLDERS);
    expect(
      watch_budget(() => {
        throw new Error('no /proc');
      }),
    ).toBe(MAX_WATCHED_FOLDERS);
  });
});

describe.runIf(linux)('FolderWatch', () => {
  it('stops watching, and reads everything, past its budget of folders', async () => {
    write('a/x.txt', 'x');
    write('b/y.txt', 'y');
    const folders = new Map([
      ['', 0],
      ['a', 0],
      ['b', 0],
    ]);
    const watch = new FolderWatch(work, { max_folders: 2 });
    for (let scan = 0; scan < 3; scan++) {
      const hints = await watch.begin(folders.keys());
      for (const rel of folders.keys()) hints.seen(rel, ctime(rel));
      expect(hints.unchanged('b', ctime('b'))).toBe(false);
      watch.end(hints, folders, []);
      expect(watch.watched).toBe(0);
    }
  });

  it('trusts a folder only from the scan after the one it was watched through', async () => {
    write('a/x.txt', 'x');
    write('b/y.txt', 'y');
    const folders = new Map([
      ['', 0],
      ['a', 0],
      ['b', 0],
    ]);
    const watch = new FolderWatch(work);
    const scan = async () => {
      const hints = await watch.begin(folders.keys());
      for (const rel of folders.keys()) hints.seen(rel, ctime(rel));
      return hints;
    };
    try {
      const first = await scan();
      expect(first.unchanged('b', ctime('b'))).toBe(false);
      watch.end(first, folders, []);
      expect(watch.watched).toBe(0);
      // the second scan watches, and reads everything
      const second = await scan();
      expect(watch.watched).toBe(3);
      expect(second.unchanged('b', ctime('b'))).toBe(false);
      watch.end(second, folders, ['a/node_modules']);

      writeFileSync(join(work, 'a', 'x.txt'), 'X');
      const third = await scan();
      expect(third.unchanged('a', ctime('a'))).toBe(false);
      expect(third.unchanged('b', ctime('b'))).toBe(true);
      expect(third.unchanged('', ctime(''))).toBe(true);
      // a folder whose ctime moved is read, whatever the notifications said
      expect(third.unchanged('b', ctime('b') + 1)).toBe(false);
      expect(third.excluded).toEqual(['a/node_modules']);
      // a scan that did not end well (aborted): the next one reads everything
      const fourth = await scan();
      expect(fourth.unchanged('b', ctime('b'))).toBe(false);
      watch.end(fourth, folders, []);
      const full = await watch.begin(folders.keys(), true);
      expect(full.unchanged('b', ctime('b'))).toBe(false);
    } finally {
      watch.close();
    }
    expect(watch.watched).toBe(0);
  });

  it('watches a folder afresh once it was removed and made again', async () => {
    write('b/y.txt', 'y');
    const folders = new Map([
      ['', 0],
      ['b', 0],
    ]);
    const watch = new FolderWatch(work);
    const scan = async () => {
      const hints = await watch.begin(folders.keys());
      for (const rel of folders.keys()) hints.seen(rel, ctime(rel));
      watch.end(hints, folders, []);
      return hints;
    };
    try {
      await scan();
      await scan();
      rmSync(join(work, 'b'), { recursive: true });
      mkdirSync(join(work, 'b'));
      const rebuilt = await scan();
      expect(rebuilt.unchanged('b', ctime('b'))).toBe(false);
      // watched from the end of that scan: not trusted by the next one
      expect((await scan()).unchanged('b', ctime('b'))).toBe(false);
      expect((await scan()).unchanged('b', ctime('b'))).toBe(true);
      writeFileSync(join(work, 'b', 'z.txt'), 'z');
      expect((await scan()).unchanged('b', ctime('b'))).toBe(false);
    } finally {
      watch.close();
    }
  });
});

describe.runIf(linux)('a watched CheckpointStore', () => {
  it('records every change a full walk records, through 21 rounds of changes by hand and by a shell', async () => {
    write('a.txt', 'alpha');
    write('src/b.ts', 'export const b = 1;');
    write('src/deep/c.ts', 'c');
    write('docs/readme.md', 'docs');
    const store = new CheckpointStore({ work_dir: work, watch: true, racy_window_ms: 0 });
    const changes: Array<() => void> = [
      () => write('src/b.ts', 'export const b = 2;'), // in place, same size
      () => write('new.txt', 'new'),
      () => write('x/y/z/deep.txt', 'deep'),
      () => renameSync(join(work, 'x'), join(work, 'moved')),
      () => write('moved/y/z/deep.txt', 'DEEP'),
      () => {
        renameSync(join(work, 'docs'), join(work, 'docs-old'));
        mkdirSync(join(work, 'docs'));
      },
      () => write('docs/readme.md', 'docs again'),
      () => write('docs/readme.md', 'DOCS AGAIN'), // in place, in a folder made again
      () => write('docs-old/readme.md', 'old docs'),
      () => chmodSync(join(work, 'a.txt'), 0o755),
      () => symlinkSync('a.txt', join(work, 'src', 'link')),
      () => {
        unlinkSync(join(work, 'src', 'link'));
        symlinkSync('b.ts', join(work, 'src', 'link'));
      },
      () => rmSync(join(work, 'src', 'deep'), { recursive: true }),
      () => write('src/deep/c.ts', 'c, made again'),
      () => write('src/deep/c.ts', 'C, made again'),
      () => unlinkSync(join(work, 'new.txt')),
      () =>
        execFileSync(
          'sh',
          [
            '-c',
            "sed -i 's/alpha/omega/' a.txt && mkdir -p out && mv docs-old out/ && chmod -x a.txt && ln -s out/docs-old d",
          ],
          { cwd: work },
        ),
      () => write('out/docs-old/readme.md', 'moved twice'),
      () => execFileSync('sh', ['-c', 'printf more >> src/b.ts && rm -rf moved'], { cwd: work }),
      () => write('src/deep/c.ts', 'last'),
      () => undefined,
    ];
    try {
      for (const [step, change] of changes.entries()) {
        change();
        const record = await store.create();
        expect(record.tree, `after change ${step}`).toBe(await full_tree());
      }
    } finally {
      store.close();
    }
  });

  it('lists and stats only the folders notified: a file written through a link from outside is not seen', async () => {
    write('a/kept.txt', 'one');
    write('b/other.txt', 'other');
    const outside = join(root, 'outside.txt');
    linkSync(join(work, 'a', 'kept.txt'), outside);
    const store = new CheckpointStore({ work_dir: work, watch: true, racy_window_ms: 0 });
    try {
      await store.create();
      await store.create();
      const before = (await store.create()).tree;
      // the kernel reports this write to the outside folder only (the documented limit)
      writeFileSync(outside, 'two, longer');
      expect((await store.create()).tree).toBe(before);
      expect(await full_tree()).not.toBe(before);
      // a restore reads every folder, whatever the watch knows
      const plan = await store.restore(store.list()[0]!.id, { dry_run: true });
      expect(plan.actions.map((action) => action.path)).toEqual(['a/kept.txt']);
    } finally {
      store.close();
    }
  });
});

import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fs_state } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoint_store.js';
import { CheckpointError } from './errors.js';
import { CACHEDIR_TAG_SIGNATURE } from './exclude_rules.js';

let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'lich-checkpoints-'));
});

afterEach(() => {
  // a test may leave a read-only folder behind
  rmSync(work, { recursive: true, force: true, maxRetries: 2 });
});

function write(path: string, content: string | Buffer, mode?: number): void {
  const full = join(work, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  if (mode !== undefined) chmodSync(full, mode);
}

/** Waits until the clock has moved on a few milliseconds. */
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

function read(path: string): string {
  return readFileSync(join(work, path), 'utf8');
}

describe('CheckpointStore', () => {
  it('restores contents, deletions, renames, modes, links and folders exactly', async () => {
    write('a.txt', 'alpha\n');
    write('src/b.ts', 'export const b = 1;\n');
    write('bin/run.sh', '#!/bin/sh\necho hi\n', 0o644);
    write('dir/nested/deep.txt', 'deep\n');
    write('.env', 'SECRET=1\n');
    write('blob.bin', Buffer.from([0, 1, 2, 255]));
    mkdirSync(join(work, 'empty'));
    symlinkSync('a.txt', join(work, 'link-to-a'));
    const store = new CheckpointStore({ work_dir: work });
    const state = fs_state(work);
    const first = await store.create({ kind: 'before_prompt', label: 'first prompt' });
    expect(first.files).toBe(6);

    write('a.txt', 'ALPHA\nmore\n');
    renameSync(join(work, 'src/b.ts'), join(work, 'src/c.ts'));
    chmodSync(join(work, 'bin/run.sh'), 0o755);
    rmSync(join(work, 'dir'), { recursive: true });
    unlinkSync(join(work, '.env'));
    rmSync(join(work, 'empty'), { recursive: true });
    unlinkSync(join(work, 'link-to-a'));
    symlinkSync('src/c.ts', join(work, 'link-to-a'));
    write('new/file.txt', 'new\n');
    mkdirSync(join(work, 'blob.bin.d'));
    const changed = fs_state(work);

    const result = await store.restore(first.id);
    expect(result.status).toBe('restored');
    expect(result.skipped).toEqual([]);
    expect(fs_state(work)).toEqual(state);

    // redo: the checkpoint taken before the rewind brings the turn back
    const redo = await store.restore(result.before!.id, { expected: result.after!.id });
    expect(redo.status).toBe('restored');
    expect(fs_state(work)).toEqual(changed);
  });

  it('summarises changes with renames and line counts', async () => {
    write('a.txt', 'one\ntwo\nthree\n');
    write('old/name.txt', 'moved content\n');
    write('gone.txt', 'bye\n');
    write('tool.sh', 'echo\n');
    const store = new CheckpointStore({ work_dir: work });
    const before = await store.create();
    write('a.txt', 'one\n2\nthree\nfour\n');
    renameSync(join(work, 'old/name.txt'), join(work, 'new-name.txt'));
    unlinkSync(join(work, 'gone.txt'));
    chmodSync(join(work, 'tool.sh'), 0o755);
    write('bin.dat', Buffer.from([1, 0, 2]));
    const after = await store.create();
    const changes = store.changes(before.id, after.id, { lines: true });
    expect(changes).toEqual([
      { path: 'a.txt', status: 'modified', kind: 'file', added_lines: 2, removed_lines: 1 },
      { path: 'bin.dat', status: 'added', kind: 'file', binary: true },
      { path: 'gone.txt', status: 'deleted', kind: 'file', added_lines: 0, removed_lines: 1 },
      {
        path: 'new-name.txt',
        status: 'renamed',
        kind: 'file',
        from: 'old/name.txt',
        added_lines: 0,
        removed_lines: 0,
      },
      { path: 'tool.sh', status: 'mode', kind: 'file', mode_before: 0o644, mode_after: 0o755 },
    ]);
  });

  it('reads only what changed, and an unchanged folder costs a record', async () => {
    for (let i = 0; i < 50; i++) write(`f/${i}.txt`, `file ${i}\n`);
    // with no racy window, a file changed in the millisecond a checkpoint starts is still read
    // again: let the clock move on past each change
    await tick();
    const store = new CheckpointStore({ work_dir: work, racy_window_ms: 0 });
    const first = await store.create();
    expect(first.read_files).toBe(50);
    const quiet = await store.create();
    expect(quiet.read_files).toBe(0);
    expect(quiet.new_bytes).toBe(0);
    expect(quiet.tree).toBe(first.tree);
    write('f/3.txt', 'changed\n');
    await tick();
    const one = await store.create();
    expect(one.read_files).toBe(1);
    expect(one.tree).not.toBe(first.tree);
    // a fresh store on the same folder reads the index from disk
    const cold = await new CheckpointStore({ work_dir: work, racy_window_ms: 0 }).create();
    expect(cold.read_files).toBe(0);
    expect(cold.tree).toBe(one.tree);
  });

  it('appends the folders that changed to a journal, which a fresh store reads back', async () => {
    for (let i = 0; i < 200; i++) write(`d${i % 10}/f${i}.txt`, `file ${i}\n`);
    await tick();
    const store = new CheckpointStore({ work_dir: work, racy_window_ms: 0 });
    await store.create();
    const journal = join(store.store_dir, 'index.log');
    write('d3/f3.txt', 'changed once\n');
    await tick();
    await store.create();
    write('d4/f4.txt', 'changed twice\n');
    rmSync(join(work, 'd5'), { recursive: true });
    await tick();
    const last = await store.create();
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1 + 2 + 3);
    const fresh = await new CheckpointStore({ work_dir: work, racy_window_ms: 0 }).create();
    expect(fresh.read_files).toBe(0);
    expect(fresh.tree).toBe(last.tree);
    // a journal whose tail a crash cut: what follows the cut is read again, never trusted
    const lines = readFileSync(journal, 'utf8').split('\n');
    // the second change's first row (d4) cut in the middle, and the rest of it lost
    writeFileSync(journal, [...lines.slice(0, 3), lines[3]!.slice(0, 40)].join('\n'));
    const after_cut = await new CheckpointStore({ work_dir: work, racy_window_ms: 0 }).create();
    expect(after_cut.tree).toBe(last.tree);
    expect(after_cut.read_files).toBe(1);
  });

  it('sees a same-size change made within the same clock tick', async () => {
    write('x.txt', 'aaaa');
    // the default window: a file changed a moment ago is read again, not trusted by its stat
    const store = new CheckpointStore({ work_dir: work });
    const first = await store.create();
    write('x.txt', 'bbbb');
    const second = await store.create();
    expect(second.tree).not.toBe(first.tree);
    await store.restore(first.id);
    expect(read('x.txt')).toBe('aaaa');
  });

  it('never reads nor touches .git, and leaves dependency and cache folders alone', async () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('node_modules/pkg/index.js', 'module.exports = 1;\n');
    write('target/CACHEDIR.TAG', `${CACHEDIR_TAG_SIGNATURE}\n`);
    write('target/debug/app', 'binary');
    write('src/main.rs', 'fn main() {}\n');
    const store = new CheckpointStore({ work_dir: work });
    const first = await store.create();
    expect(first.files).toBe(1);
    expect(first.excluded).toEqual(['node_modules', 'target']);
    write('.git/HEAD', 'ref: refs/heads/other\n');
    write('node_modules/pkg/index.js', 'module.exports = 2;\n');
    write('src/main.rs', 'fn main() { changed }\n');
    await store.restore(first.id);
    expect(read('src/main.rs')).toBe('fn main() {}\n');
    expect(read('.git/HEAD')).toBe('ref: refs/heads/other\n');
    expect(read('node_modules/pkg/index.js')).toBe('module.exports = 2;\n');
  });

  it('records big files by name only and never removes or overwrites them', async () => {
    write('big.bin', Buffer.alloc(2048, 1));
    write('small.txt', 'small\n');
    const store = new CheckpointStore({ work_dir: work, max_file_bytes: 1024 });
    const first = await store.create();
    expect(first.not_kept).toBe(1);
    expect(first.files).toBe(1);
    rmSync(join(work, 'big.bin'));
    write('later-big.bin', Buffer.alloc(4096, 2));
    write('small.txt', 'changed\n');
    const result = await store.restore(first.id);
    expect(read('small.txt')).toBe('small\n');
    expect(result.skipped.map((s) => [s.path, s.reason])).toEqual([
      ['big.bin', 'not_kept'],
      ['later-big.bin', 'not_kept'],
    ]);
    expect(readFileSync(join(work, 'later-big.bin')).length).toBe(4096);
  });

  it('reports a file someone else changed, and restores it only when told', async () => {
    write('agent.txt', 'v1\n');
    write('user.txt', 'v1\n');
    const store = new CheckpointStore({ work_dir: work });
    const before = await store.create({ kind: 'before_prompt' });
    write('agent.txt', 'agent v2\n');
    write('user.txt', 'agent v2\n');
    const after = await store.create({ kind: 'after_prompt' });
    // the user edits a file in an editor after the agent's turn
    write('user.txt', 'user v3\n');

    const dry = await store.restore(before.id, { expected: after.id, dry_run: true });
    expect(dry.status).toBe('planned');
    expect(dry.conflicts).toEqual(['user.txt']);
    const stopped = await store.restore(before.id, { expected: after.id });
    expect(stopped.status).toBe('conflicts');
    expect(stopped.conflicts).toEqual(['user.txt']);
    expect(read('agent.txt')).toBe('agent v2\n');
    expect(read('user.txt')).toBe('user v3\n');

    const kept = await store.restore(before.id, { expected: after.id, on_conflict: 'keep' });
    expect(kept.status).toBe('restored');
    expect(read('agent.txt')).toBe('v1\n');
    expect(read('user.txt')).toBe('user v3\n');
    expect(kept.skipped).toEqual([{ path: 'user.txt', reason: 'conflict' }]);

    const forced = await store.restore(before.id, {
      foreign_paths: ['user.txt'],
      on_conflict: 'overwrite',
    });
    expect(read('user.txt')).toBe('v1\n');
    // the redo point kept the user's edit
    await store.restore(forced.before!.id);
    expect(read('user.txt')).toBe('user v3\n');
  });

  it('restores into and out of read-only folders, and type changes', async () => {
    write('ro/file.txt', 'one\n');
    write('swap', 'a file\n');
    chmodSync(join(work, 'ro'), 0o555);
    const store = new CheckpointStore({ work_dir: work });
    const state = fs_state(work);
    const first = await store.create();
    chmodSync(join(work, 'ro'), 0o755);
    write('ro/file.txt', 'two\n');
    write('ro/extra.txt', 'extra\n');
    chmodSync(join(work, 'ro'), 0o555);
    rmSync(join(work, 'swap'));
    write('swap/inner.txt', 'now a folder\n');
    const result = await store.restore(first.id);
    expect(result.skipped).toEqual([]);
    expect(fs_state(work)).toEqual(state);
    chmodSync(join(work, 'ro'), 0o755);
  });

  it('never writes through a link that replaced a folder', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'lich-outside-'));
    try {
      write('dir/file.txt', 'inside\n');
      const store = new CheckpointStore({ work_dir: work });
      const first = await store.create();
      rmSync(join(work, 'dir'), { recursive: true });
      symlinkSync(outside, join(work, 'dir'));
      await store.restore(first.id);
      expect(read('dir/file.txt')).toBe('inside\n');
      expect(fs_state(outside)).toEqual({});
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('lists, gets and filters checkpoints; unknown ids are errors', async () => {
    write('a', '1');
    const store = new CheckpointStore({ work_dir: work });
    const a = await store.create({ session_id: 's1', label: '  first\nline  ' });
    const b = await store.create({ session_id: 's2' });
    expect(store.list().map((r) => r.id)).toEqual([a.id, b.id]);
    expect(store.list({ session_id: 's1' })).toEqual([a]);
    expect(store.get(a.id).label).toBe('first line');
    expect(() => store.get('nope')).toThrow(expect.objectContaining({ code: 'invalid_id' }));
    expect(() => store.get('20200101T000000000-abcdef')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    try {
      store.get('nope');
    } catch (error) {
      expect(CheckpointError.is_instance(error)).toBe(true);
    }
  });

  it('refuses a missing work folder and an aborted checkpoint', async () => {
    const gone = new CheckpointStore({
      work_dir: join(work, 'missing'),
      store_dir: join(work, 'store'),
    });
    await expect(gone.create()).rejects.toMatchObject({ code: 'no_work_dir' });
    const store = new CheckpointStore({ work_dir: work });
    await expect(store.create({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(store.list()).toEqual([]);
  });

  it('detects a damaged object instead of restoring it', async () => {
    write('a.txt', 'original\n');
    const store = new CheckpointStore({ work_dir: work });
    const first = await store.create();
    const usage = store.usage();
    expect(usage.objects).toBeGreaterThan(0);
    write('a.txt', 'changed\n');
    // damage the stored content of a.txt
    const hash = (await import('./object_store.js')).hash_of('original\n');
    const path = join(store.store_dir, 'objects', hash.slice(0, 2), hash.slice(2));
    chmodSync(path, 0o644);
    writeFileSync(path, 'tampered\n');
    const result = await store.restore(first.id);
    expect(result.skipped).toEqual([expect.objectContaining({ path: 'a.txt', reason: 'failed' })]);
    expect(read('a.txt')).toBe('changed\n');
  });
});

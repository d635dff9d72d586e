import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoint_store.js';

let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'lich-prune-'));
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

/** `bytes` that do not compress. */
function noise(bytes: number): Buffer {
  return randomBytes(bytes);
}

function write(path: string, content: string | Buffer): void {
  mkdirSync(join(work, path, '..'), { recursive: true });
  writeFileSync(join(work, path), content);
}

const DAY = 86_400_000;

describe('CheckpointStore.prune', () => {
  it('removes old checkpoints and the contents only they used', async () => {
    const store = new CheckpointStore({ work_dir: work });
    write('keep.txt', 'shared\n');
    write('a.txt', noise(1000));
    const old = await store.create({ session_id: 'closed' });
    rmSync(join(work, 'a.txt'));
    write('b.txt', noise(2000));
    const recent = await store.create({ session_id: 'closed' });
    const before = store.usage();

    const later = Date.parse(recent.created_at) + 10 * DAY;
    const dry = await store.prune({ keep_days: 5, now: later, dry_run: true });
    expect(dry.removed.map((r) => r.id)).toEqual([old.id, recent.id]);
    expect(store.usage()).toEqual(before);

    // the index still refers to the current contents: they stay for the next checkpoint
    const done = await store.prune({
      keep_days: 5,
      now: later,
      protect: (r) => r.id === recent.id,
    });
    expect(done.removed.map((r) => r.id)).toEqual([old.id]);
    expect(done.kept).toBe(1);
    expect(done.freed_bytes).toBeGreaterThanOrEqual(1000);
    expect(store.list().map((r) => r.id)).toEqual([recent.id]);
    // what is left still restores
    write('b.txt', 'changed');
    await store.restore(recent.id);
    expect(store.usage().checkpoints).toHaveLength(3);
  });

  it('removes the oldest checkpoints until the store fits', async () => {
    const store = new CheckpointStore({ work_dir: work });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      write('data.txt', noise(10_000));
      ids.push((await store.create()).id);
    }
    const total = store.usage().bytes;
    expect(total).toBeGreaterThan(50_000);
    const result = await store.prune({ max_bytes: 25_000 });
    // the newest is also in the index; two 10 kB contents fit
    expect(store.list().map((r) => r.id)).toEqual(ids.slice(3));
    expect(result.total_bytes).toBeLessThanOrEqual(25_000);
    expect(store.usage().bytes).toBe(result.total_bytes);
  });

  it('sweeps what an interrupted checkpoint left', async () => {
    const store = new CheckpointStore({ work_dir: work });
    write('a.txt', 'a');
    await store.create();
    // a content stored by a checkpoint that never wrote its record, and a half-written file
    writeFileSync(join(store.store_dir, 'tmp', '999999-abc'), 'partial');
    mkdirSync(join(store.store_dir, 'objects', 'ab'), { recursive: true });
    writeFileSync(join(store.store_dir, 'objects', 'ab', 'c'.repeat(62)), 'orphan');
    expect(store.usage().objects).toBe(3);
    const result = await store.prune({});
    expect(result.removed).toEqual([]);
    expect(result.removed_objects).toBe(1);
    expect(readdirSync(join(store.store_dir, 'tmp'))).toEqual([]);
    expect(store.usage().objects).toBe(2 /* a's content and the root tree */);
  });

  it('prunes once a day when asked whether it is due', async () => {
    const store = new CheckpointStore({ work_dir: work });
    expect(await store.prune_if_due({ keep_days: 1 })).toBeUndefined();
    write('a.txt', 'a');
    await store.create();
    expect(await store.prune_if_due({ keep_days: 1 })).toBeDefined();
    expect(await store.prune_if_due({ keep_days: 1 })).toBeUndefined();
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fs_state } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../src/index.js';

const child_script = join(import.meta.dirname, 'children', 'checkpointer.mjs');

let work: string;
const children = new Set<ChildProcess>();

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'lich-kill-'));
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  rmSync(work, { recursive: true, force: true });
});

/** Fills the work folder with `count` files of `bytes` each, all different from any before. */
function fill(round: number, count: number, bytes: number): void {
  for (let i = 0; i < count; i++) {
    const dir = join(work, `d${i % 20}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.bin`), Buffer.alloc(bytes, `${round}:${i}:`));
  }
}

/** Runs the child until it says it started, waits `delay_ms`, then kills it with SIGKILL. */
async function checkpoint_and_kill(delay_ms: number): Promise<boolean> {
  const child = spawn(process.execPath, [child_script, work, `killed after ${delay_ms} ms`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const lines = createInterface({ input: child.stdout! });
  let finished = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve) => {
    lines.on('line', (line) => {
      const said = JSON.parse(line) as { started?: boolean; done?: string };
      if (said.done !== undefined) finished = true;
      if (said.started) setTimeout(resolve, delay_ms);
    });
    child.once('exit', () => resolve());
  });
  child.kill('SIGKILL');
  await exited;
  children.delete(child);
  return finished;
}

describe('a checkpoint killed with SIGKILL midway', () => {
  it('leaves the previous checkpoint usable and is never half-used', async () => {
    fill(0, 400, 4096);
    const store = new CheckpointStore({ work_dir: work });
    const first = await store.create({ kind: 'manual', label: 'before' });
    const state = fs_state(work);
    let interrupted = 0;
    let mid_write = 0;
    for (const [round, delay] of [60, 120, 200, 300, 450].entries()) {
      // every round changes every file, so the child has 20 MB to read, hash and store
      fill(round + 1, 400, 50_000);
      const objects_before = store.usage().objects;
      const finished = await checkpoint_and_kill(delay);
      const records = store.list();
      if (!finished) {
        interrupted++;
        // it died with part of its contents stored
        if (store.usage().objects > objects_before) mid_write++;
        // the interrupted checkpoint left no record, whatever it stored before dying
        expect(records.every((r) => r.label !== `killed after ${delay} ms`)).toBe(true);
      }
      // every record left is whole: each restores without a missing part (dry run)
      for (const record of records) {
        const plan = await store.restore(record.id, { dry_run: true });
        expect(plan.status).toBe('planned');
      }
    }
    expect(interrupted).toBeGreaterThan(0);
    expect(mid_write).toBeGreaterThan(0);
    // the lock of the dead child is taken over; the previous checkpoint restores exactly
    const result = await store.restore(first.id);
    expect(result.status).toBe('restored');
    expect(result.skipped).toEqual([]);
    expect(fs_state(work)).toEqual(state);
    // what the dead children left half-written is swept
    await store.prune({});
    expect(readdirSync(join(store.store_dir, 'tmp'))).toEqual([]);
    expect(store.usage().objects).toBeGreaterThan(0);
    // 100 MB written and read back on a shared machine: more than the default 20 s
  }, 120_000);
});

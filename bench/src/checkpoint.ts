/**
 * `checkpoint`: what a checkpoint of a work folder costs (`@lich/checkpoints`), on a generated tree
 * of 20,000 files / 200 MB and on a copy of this repository with its `node_modules`:
 * - the first checkpoint (everything read, hashed and stored);
 * - nothing changed, in a process that took the previous checkpoint (the index in memory) and in a
 *   fresh store (the index read from disk, as a new `lich` process does), against the floor: a bare
 *   `readdir` + `lstat` walk of the same entries, which no walk can beat; and in a store that
 *   watches its folders (`watch: true`, as a long session's does), which reads only the folders a
 *   notification came from (the target's case: a session's next prompt);
 * - 10 files changed; after an `npm install` (a package's files in `node_modules/`, the lockfile);
 * - the store's growth over 50 turns of 10 changed files each (a checkpoint before and after each
 *   turn), against the bytes the turns wrote.
 * Figures are medians of `BENCH_CHECKPOINT_ROUNDS` (15) rounds; CPU time is shown beside the wall
 * time, and the bare walk is timed in the same rounds, since a shared machine's load moves the
 * wall time most. A file changed less than 50 ms before a checkpoint is read again by the next
 * one (the racy rule), so a round of 10 changed files reads 20.
 * `BENCH_CHECKPOINT_FILES` / `BENCH_CHECKPOINT_MB` size the generated tree. Cases: `generated`,
 * `repo` (`pnpm bench:checkpoint repo`).
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CheckpointStore } from '@lich/checkpoints';
import {
  copy_repository,
  fake_install,
  generator,
  make_generated_tree,
  text_of,
} from './checkpoint_trees.js';
import { median } from './stats.js';
import type { BenchRow } from './types.js';

export const cases = ['generated', 'repo'] as const;

const ROUNDS = Number(process.env.BENCH_CHECKPOINT_ROUNDS ?? 15);
const FILES = Number(process.env.BENCH_CHECKPOINT_FILES ?? 20_000);
const MEGABYTES = Number(process.env.BENCH_CHECKPOINT_MB ?? 200);
const TURNS = 50;
const CHANGED_PER_TURN = 10;
/** Past the store's racy window (2 s), so files written before are trusted by their stat. */
const SETTLE_MS = 2_100;
const MB = 1024 * 1024;

/** Wall and CPU milliseconds of `fn`. */
async function timed(fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await fn();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** The floor: `readdir` and `lstat` of every entry a checkpoint walks, and nothing else. */
function bare_walk(root: string): number {
  let count = 0;
  const skip = new Set(['.git', '.lich', 'node_modules']);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (skip.has(name)) continue;
      const info = lstatSync(`${dir}/${name}`);
      count++;
      if (info.isDirectory()) walk(`${dir}/${name}`);
    }
  };
  walk(root);
  return count;
}

/** Rewrites `count` files of `paths` with new content of about their size; returns the bytes. */
function change_files(
  root: string,
  paths: readonly string[],
  count: number,
  random: () => number,
): number {
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const path = paths[Math.floor(random() * paths.length)]!;
    const full = join(root, path);
    const old = readFileSync(full);
    // an edit: a line in the middle replaced, the rest kept
    const at = Math.floor(old.length / 2);
    const next = Buffer.concat([
      old.subarray(0, at),
      text_of(random, 80),
      Buffer.from('\n'),
      old.subarray(at),
    ]);
    writeFileSync(full, next);
    bytes += next.length;
  }
  return bytes;
}

async function measure(label: string, root: string, paths: readonly string[], rows: BenchRow[]) {
  const load = () => `load ${loadavg()[0]?.toFixed(1) ?? '?'}`;
  const random = generator(42);
  const store = new CheckpointStore({ work_dir: root });
  const row = (metric: string, lich: number, unit: string, extra: Partial<BenchRow> = {}) =>
    rows.push({ bench: 'checkpoint', metric: `${label}: ${metric}`, lich, unit, ...extra });

  const first = await timed(() => store.create());
  const after_first = store.usage();
  const record = after_first.checkpoints[0]!;
  row(
    `first checkpoint (${record.files} files, ${(record.bytes / MB).toFixed(0)} MB)`,
    first.wall,
    'ms',
  );
  row('store after the first checkpoint', after_first.bytes / MB, 'MB', {
    baseline: record.bytes / MB,
    baseline_name: 'files kept',
    ratio: after_first.bytes / record.bytes,
  });

  await sleep(SETTLE_MS);
  await store.create();
  const warm: number[] = [];
  const warm_cpu: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const lich = await timed(() => store.create());
    warm.push(lich.wall);
    warm_cpu.push(lich.cpu);
    floor.push((await timed(() => bare_walk(root))).wall);
  }
  const nothing = median(warm);
  row(`nothing changed, every folder walked (${load()})`, nothing, 'ms', {
    baseline: median(floor),
    baseline_name: 'bare lstat walk',
    ratio: nothing / median(floor),
  });
  row('nothing changed, CPU time', median(warm_cpu), 'ms');
  const cold: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    cold.push((await timed(() => new CheckpointStore({ work_dir: root }).create())).wall);
  }
  row('nothing changed, index read from disk (a new process)', median(cold), 'ms');

  // a long session (TUI, chat, serve): the folders watched from the second checkpoint on
  const watched = new CheckpointStore({ work_dir: root, watch: true });
  try {
    for (let warmup = 0; warmup < 3; warmup++) await watched.create();
    const quiet: number[] = [];
    const quiet_cpu: number[] = [];
    const quiet_floor: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const lich = await timed(() => watched.create());
      quiet.push(lich.wall);
      quiet_cpu.push(lich.cpu);
      quiet_floor.push((await timed(() => bare_walk(root))).wall);
    }
    const quiet_ms = median(quiet);
    row(`nothing changed, folders watched (a long session; ${load()})`, quiet_ms, 'ms', {
      baseline: median(quiet_floor),
      baseline_name: 'bare lstat walk',
      ratio: quiet_ms / median(quiet_floor),
      ...(label === 'generated' && FILES >= 20_000
        ? { target: '<= 50 ms', pass: quiet_ms <= 50 }
        : {}),
    });
    row('nothing changed, folders watched, CPU time', median(quiet_cpu), 'ms');
    const ten_watched: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      change_files(root, paths, 10, random);
      ten_watched.push((await timed(() => watched.create())).wall);
    }
    row('10 files changed, folders watched', median(ten_watched), 'ms', {
      ...(label === 'generated' ? { target: '<= 100 ms', pass: median(ten_watched) <= 100 } : {}),
    });
  } finally {
    watched.close();
  }

  const ten: number[] = [];
  const ten_cpu: number[] = [];
  const ten_floor: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    change_files(root, paths, 10, random);
    const lich = await timed(() => store.create());
    ten.push(lich.wall);
    ten_cpu.push(lich.cpu);
    ten_floor.push((await timed(() => bare_walk(root))).wall);
  }
  const ten_ms = median(ten);
  row(`10 files changed (${load()})`, ten_ms, 'ms', {
    baseline: median(ten_floor),
    baseline_name: 'bare lstat walk',
    ratio: ten_ms / median(ten_floor),
    ...(label === 'generated' ? { target: '<= 100 ms', pass: ten_ms <= 100 } : {}),
  });
  row('10 files changed, CPU time', median(ten_cpu), 'ms');

  await sleep(SETTLE_MS);
  await store.create();
  const install: number[] = [];
  for (let round = 0; round < 5; round++) {
    fake_install(root, round, 300);
    install.push((await timed(() => store.create())).wall);
  }
  row('after npm install (300 files in node_modules/, lockfile)', median(install), 'ms');

  const before_turns = store.usage().bytes;
  let written = 0;
  for (let turn = 0; turn < TURNS; turn++) {
    await store.create({ kind: 'before_prompt', session_id: 'bench' });
    written += change_files(root, paths, CHANGED_PER_TURN, random);
    await store.create({ kind: 'after_prompt', session_id: 'bench' });
  }
  const growth = store.usage().bytes - before_turns;
  row(`store growth over ${TURNS} turns of ${CHANGED_PER_TURN} files`, growth / MB, 'MB', {
    baseline: written / MB,
    baseline_name: 'bytes of the changed files',
    ratio: growth / written,
    target: '<= 1× what changed',
    pass: growth <= written,
  });
  row(`store after ${TURNS} turns`, store.usage().bytes / MB, 'MB');
}

export async function run(only: readonly string[] = []): Promise<BenchRow[]> {
  const wanted = (name: (typeof cases)[number]) => only.length === 0 || only.includes(name);
  const rows: BenchRow[] = [];
  if (wanted('generated')) {
    const root = mkdtempSync(join(tmpdir(), 'lich-bench-checkpoint-'));
    try {
      process.stderr.write(`  generating ${FILES} files, ${MEGABYTES} MB…\n`);
      const paths = make_generated_tree(root, FILES, MEGABYTES * MB);
      await measure('generated', root, paths, rows);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  if (wanted('repo')) {
    const root = mkdtempSync(join(tmpdir(), 'lich-bench-checkpoint-repo-'));
    try {
      process.stderr.write('  copying this repository with its node_modules…\n');
      const repo = resolve(import.meta.dirname, '..', '..');
      const paths = copy_repository(repo, root).filter((path) => /\.(ts|md|json)$/.test(path));
      await measure('repo', root, paths, rows);
      // what node_modules would cost if it were kept
      const all = new CheckpointStore({
        work_dir: root,
        default_excludes: false,
        store_dir: join(root, '.lich', 'all'),
      });
      const first = await timed(() => all.create());
      await sleep(SETTLE_MS);
      await all.create();
      const again: number[] = [];
      for (let round = 0; round < 5; round++) again.push((await timed(() => all.create())).wall);
      const files = all.list()[0]?.files ?? 0;
      rows.push({
        bench: 'checkpoint',
        metric: `repo with node_modules kept: first checkpoint (${files} files)`,
        lich: first.wall,
        unit: 'ms',
      });
      rows.push({
        bench: 'checkpoint',
        metric: 'repo with node_modules kept: nothing changed',
        lich: median(again),
        unit: 'ms',
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return rows;
}

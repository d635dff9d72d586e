/**
 * `bench:turn`'s deterministic figure: the instructions one more turn executes, Lich against the
 * bare loop, counted by valgrind's callgrind (every thread of the process: V8's compiler and GC
 * helpers too), and what the difference is made of.
 *
 * Why: the CPU time per turn moves by ±0.3–0.5 ms from run to run on a shared machine, as much as
 * the target it is held to, so a change of 0.1 ms cannot be seen in it. An instruction count
 * hardly depends on what else the machine does: it holds to about 1 % a turn from 20 to 200 turns
 * (0.07 M of some 6 M), and to some 0.2 M from 2 to 20 turns, where a collection or a compile that
 * happens once lands in one window or the other by timing (V8's random start-up work,
 * `RANDOM_START`, is left out). It is not time: a system call counts as the few instructions that
 * make it, and a cache miss as one instruction. So it is reported beside the CPU figure, without
 * a target.
 *
 * How: each program runs at 2, 20 and 200 turns under `valgrind --tool=callgrind` (`RUNS` of
 * each); per turn, (I(20) − I(2)) / 18 and (I(200) − I(20)) / 180, so start-up and exit cancel
 * out. Each Lich run gets a fresh copy of the code cache its earlier (unmeasured) runs wrote,
 * since a run slowed down 30-fold by valgrind would otherwise rewrite the cache halfway and change
 * the next run. The functions callgrind names are sorted into kinds of work (`instruction_kind`):
 * the difference in each window, kind by kind, says where a turn's extra work lies (V8's garbage
 * collector, its optimizing compiler, property lookups in code not yet optimized, JSON, the rest).
 *
 * Needs `valgrind` (Debian's package); without it the rows say so and nothing is measured.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { script } from './cli_process.js';
import { median } from './stats.js';
import type { BenchRow } from './types.js';

/** What `instruction_rows` runs: the two programs, where, and with what. */
export interface InstructionRun {
  server: FakeServer;
  /** The folder the programs run in (its `.cache/lich/code-cache` is Lich's warm code cache). */
  dir: string;
  env: Record<string, string>;
  /** Node's arguments for Lich and for the bare loop, for a run of `turns` turns. */
  lich_args: (turns: number) => string[];
  bare_args: (turns: number) => string[];
}

const SIZES = [2, 20, 200] as const;
/**
 * Runs of each size, the median taken: a short run varies by some 3–5 M instructions (when a
 * collection or a compile lands), which divided by 18 turns would move the 2-to-20 figure by 0.3 M;
 * over 180 turns one run is enough.
 */
const RUNS: Readonly<Record<(typeof SIZES)[number], number>> = { 2: 3, 20: 3, 200: 1 };

/** The kinds of work a function callgrind names belongs to, tried in order. */
const KINDS: readonly { kind: string; test: RegExp }[] = [
  {
    kind: 'garbage collection',
    test: /Scaveng|Marking|MarkCompact|Sweep|Evacuat|MemoryChunk|IteratePointers|SizeFromMap|heap::base|Heap::|ShouldVisit|VisitMapPointer|Minor|RememberedSet|SlotSet/,
  },
  { kind: 'optimizing compiler (TurboFan)', test: /compiler::|Turbofan|OptimizedCompilationJob/ },
  { kind: 'JSON', test: /Json/ },
  {
    kind: 'property lookups (inline caches, unoptimized code)',
    test: /^Builtins_\w*IC\w*|LookupIterator|FastPropertyAt|FieldIndex|MigrateToMap|TransitionsAccessor|Map::|DescriptorArray/,
  },
  {
    kind: 'code compiled and loaded (parser, bytecode, baseline, code cache)',
    test: /Parser|Scanner|BytecodeGenerator|Deserializer|Baseline(Compiler|Batch)|Compiler::|CodeSerializer|PreParser/,
  },
  { kind: 'other V8 builtins (interpreter, baseline, calls)', test: /^Builtins_/ },
  { kind: 'JIT-compiled code', test: /^0x[0-9a-f]+ \[\?\?\?\]/ },
];

/**
 * Work of random length at each process's start, left out of every count: V8 picks its string
 * hash seed by a search for primes (`HashSeed::InitializeRoots` → `sprp`), some 0–20 M
 * instructions that differ from run to run and have nothing to do with a turn.
 */
const RANDOM_START = /HashSeed::InitializeRoots|detail::sprp/;

/** The kind of work of a function as `callgrind_annotate` names it (its name after `file:`). */
export function instruction_kind(name: string): string {
  return (
    KINDS.find(({ test }) => test.test(name))?.kind ?? 'the rest (Node, libuv, libc, V8 runtime)'
  );
}

/** The instructions of one run: the total, and per kind of work. */
interface Count {
  total: number;
  kinds: Map<string, number>;
}

/** Whether callgrind can run here. */
function has_valgrind(): boolean {
  return spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Runs `node <args>` under callgrind and counts its instructions. */
async function count(run: InstructionRun, args: string[], turns: number): Promise<Count> {
  const work = await mkdtemp(join(run.dir, 'callgrind-'));
  try {
    // a fresh copy of the warm code cache: a slowed-down run must not rewrite the one others read
    const cache = join(work, 'code-cache');
    await cp(join(run.dir, '.cache', 'lich', 'code-cache'), cache, { recursive: true }).catch(
      () => undefined,
    );
    run.server.enqueue(...script(turns));
    const out = join(work, 'callgrind.out');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        'valgrind',
        [
          '--tool=callgrind',
          // V8 writes the code it runs: valgrind must see it change
          '--smc-check=all-non-file',
          `--callgrind-out-file=${out}`,
          process.execPath,
          ...args,
        ],
        {
          cwd: run.dir,
          env: { ...run.env, LICH_CODE_CACHE_DIR: cache },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr = (stderr + text).slice(-2000);
      });
      child.on('error', reject);
      child.on('close', (code) => {
        if (code === 0) resolve();
        else reject(new Error(`valgrind node ${args.join(' ')} exited ${code}: ${stderr}`));
      });
    });
    // callgrind writes one file per process (`out`, or `out.<pid>` with several)
    const files = (await readdir(work)).filter((name) => name.startsWith('callgrind.out'));
    const result: Count = { total: 0, kinds: new Map() };
    for (const file of files) {
      const annotated = spawnSync('callgrind_annotate', ['--threshold=100', join(work, file)], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      if (annotated.status !== 0) throw new Error(`callgrind_annotate: ${annotated.stderr}`);
      for (const line of annotated.stdout.split('\n')) {
        const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
        if (match === null) continue;
        const instructions = Number(match[1]?.replaceAll(',', ''));
        const where = match[2] ?? '';
        if (where.includes('PROGRAM TOTALS')) {
          result.total += instructions;
          continue;
        }
        // `file:function [object]`: the file part is `???` where there are no line tables
        const name = where.replace(/^[^:]*:/, '');
        if (RANDOM_START.test(name)) {
          result.total -= instructions;
          continue;
        }
        const kind = instruction_kind(name);
        result.kinds.set(kind, (result.kinds.get(kind) ?? 0) + instructions);
      }
    }
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The median of several runs' counts, the total and each kind on its own. */
function median_count(runs: readonly Count[]): Count {
  const kinds = new Set(runs.flatMap((counted) => [...counted.kinds.keys()]));
  return {
    total: median(runs.map((counted) => counted.total)),
    kinds: new Map(
      [...kinds].map((kind) => [kind, median(runs.map((counted) => counted.kinds.get(kind) ?? 0))]),
    ),
  };
}

/** Millions of instructions per turn from `low` to `high` turns. */
function per_turn(counts: Map<number, Count>, low: number, high: number, kind?: string): number {
  const of = (turns: number) => {
    const counted = counts.get(turns);
    if (counted === undefined) return Number.NaN;
    return kind === undefined ? counted.total : (counted.kinds.get(kind) ?? 0);
  };
  return (of(high) - of(low)) / (high - low) / 1e6;
}

/** The instruction rows of `bench:turn` (see the file's comment). */
export async function instruction_rows(run: InstructionRun): Promise<BenchRow[]> {
  if (!has_valgrind()) {
    return [
      {
        bench: 'turn',
        metric: 'instructions per turn: not measured (valgrind is not installed)',
        lich: Number.NaN,
        unit: 'M',
      },
    ];
  }
  const counts = { lich: new Map<number, Count>(), bare: new Map<number, Count>() };
  for (const turns of SIZES) {
    process.stderr.write(`  callgrind: ${turns} turns, ${RUNS[turns]} run(s) of each…\n`);
    const lich: Count[] = [];
    const bare: Count[] = [];
    for (let round = 0; round < RUNS[turns]; round++) {
      lich.push(await count(run, run.lich_args(turns), turns));
      bare.push(await count(run, run.bare_args(turns), turns));
    }
    counts.lich.set(turns, median_count(lich));
    counts.bare.set(turns, median_count(bare));
  }
  const row = (metric: string, lich: number, bare: number): BenchRow => ({
    bench: 'turn',
    metric,
    lich,
    baseline: bare,
    baseline_name: 'node:http + SSE loop',
    unit: 'M',
    ratio: lich / bare,
  });
  const kinds = new Set(
    [...counts.lich.values(), ...counts.bare.values()].flatMap((counted) => [
      ...counted.kinds.keys(),
    ]),
  );
  const rows: BenchRow[] = [];
  for (const [low, high] of [
    [2, 20],
    [20, 200],
  ] as const) {
    const lich = per_turn(counts.lich, low, high);
    const bare = per_turn(counts.bare, low, high);
    rows.push(
      row(
        `instructions per turn from ${low} to ${high} turns, callgrind (over the bare loop: ${(lich - bare).toFixed(2)} M)`,
        lich,
        bare,
      ),
    );
    // where the difference lies, the largest kind first
    const split = [...kinds]
      .map((kind) => ({
        kind,
        lich: per_turn(counts.lich, low, high, kind),
        bare: per_turn(counts.bare, low, high, kind),
      }))
      .sort((a, b) => b.lich - b.bare - (a.lich - a.bare));
    for (const part of split) {
      rows.push(
        row(
          `  of which ${part.kind} (over the bare loop: ${(part.lich - part.bare).toFixed(2)} M)`,
          part.lich,
          part.bare,
        ),
      );
    }
  }
  return rows;
}

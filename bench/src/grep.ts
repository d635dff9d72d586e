/**
 * `grep` over a generated tree of 20,000 files: the tool on its ripgrep path against the `rg`
 * binary run directly, and the JS engine against `grep -rn`, each pair alternating in one run.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { find_ripgrep, grep_search, grep_tool, ToolExecutor, ToolRegistry } from '@lich/tools';
import { alternate } from './stats.js';
import type { BenchRow } from './types.js';

const FILES = 20_000;
const FOLDERS = 40;
const SUBFOLDERS = 25;
const LINES_PER_FILE = 30;
const NEEDLE = 'needle_token';
// one file in 50 holds the needle: 400 matching lines, under the tool's 500-match cap
const NEEDLE_EVERY = 50;
const ROUNDS = 9;

const WORDS = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  'function',
  'return',
  'const',
  'let',
  'import',
  'export',
  'value',
  'index',
  'result',
  'error',
  'buffer',
];

/** A small deterministic generator, so every run searches the same tree. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function make_tree(root: string): Promise<void> {
  const random = generator(20_000);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)] as string;
  for (let index = 0; index < FILES; index++) {
    const folder = join(
      root,
      `d${index % FOLDERS}`,
      `s${Math.floor(index / FOLDERS) % SUBFOLDERS}`,
    );
    if (index < FOLDERS * SUBFOLDERS) await mkdir(folder, { recursive: true });
    const lines: string[] = [];
    for (let line = 0; line < LINES_PER_FILE; line++) {
      lines.push(Array.from({ length: 8 }, pick).join(' '));
    }
    if (index % NEEDLE_EVERY === 0) {
      const at = Math.floor(random() * LINES_PER_FILE);
      lines[at] = `${lines[at]} ${NEEDLE} here`;
    }
    await writeFile(join(folder, `f${index}.ts`), `${lines.join('\n')}\n`);
  }
}

/** Runs a command to completion, returning how many lines it printed. */
function run_command(command: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || code === 1) resolve(lines);
      else reject(new Error(`${command} exited with ${code}`));
    });
  });
}

function count_lines(text: string): number {
  return text.split('\n').filter((line) => /:\d+:/.test(line)).length;
}

export async function run(): Promise<BenchRow[]> {
  const rg_path = await find_ripgrep();
  if (rg_path === undefined)
    throw new Error('@vscode/ripgrep is not installed; cannot run bench grep');
  const root = await mkdtemp(join(tmpdir(), 'lich-bench-grep-'));
  try {
    await make_tree(root);
    const registry = new ToolRegistry();
    registry.register(grep_tool);
    const executor = new ToolExecutor(registry, { work_dir: root });

    // warm the page cache and check every contender finds the same lines
    const tool_result = await executor.execute('grep', { pattern: NEEDLE });
    const js_result = await grep_search({ work_dir: root, pattern: NEEDLE, engine: 'js' });
    const rg_lines = await run_command(rg_path, ['-n', '--no-heading', NEEDLE, '.'], root);
    const grep_lines = await run_command('grep', ['-rn', NEEDLE, '.'], root);
    const expected = FILES / NEEDLE_EVERY;
    for (const [name, found] of [
      ['grep tool (rg)', count_lines(tool_result.output)],
      ['grep tool (js)', count_lines(js_result.output)],
      ['rg', rg_lines],
      ['grep -rn', grep_lines],
    ] as const) {
      if (found !== expected) throw new Error(`${name} found ${found} lines, expected ${expected}`);
    }
    if (js_result.output !== tool_result.output) {
      throw new Error('the JS engine and the ripgrep path gave different output');
    }

    const rg_pair = await alternate(
      ROUNDS,
      async () => {
        const result = await executor.execute('grep', { pattern: NEEDLE });
        if (!result.ok) throw new Error(result.output);
      },
      async () => {
        await run_command(rg_path, ['-n', '--no-heading', NEEDLE, '.'], root);
      },
    );
    const js_pair = await alternate(
      ROUNDS,
      async () => {
        const result = await grep_search({ work_dir: root, pattern: NEEDLE, engine: 'js' });
        if (!result.ok) throw new Error(result.output);
      },
      async () => {
        await run_command('grep', ['-rn', NEEDLE, '.'], root);
      },
    );
    return [
      {
        bench: 'grep',
        metric: `grep tool, ripgrep path, ${FILES} files`,
        lich: rg_pair.lich_ms,
        baseline: rg_pair.baseline_ms,
        baseline_name: 'rg -n',
        unit: 'ms',
        ratio: rg_pair.ratio,
        target: 'ratio <= 1.5',
        pass: rg_pair.ratio <= 1.5,
      },
      {
        bench: 'grep',
        metric: `grep tool, JS engine, ${FILES} files`,
        lich: js_pair.lich_ms,
        baseline: js_pair.baseline_ms,
        baseline_name: 'grep -rn',
        unit: 'ms',
        ratio: js_pair.ratio,
        target: 'ratio <= 3',
        pass: js_pair.ratio <= 3,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

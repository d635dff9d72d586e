/**
 * Runs the benchmarks named on the command line (all when none) and prints one table.
 * Usage: `pnpm bench` or `pnpm bench:<name>`.
 */
import type { BenchModule, BenchRow } from './types.js';

const ALL = [
  'loop',
  'stream',
  'grep',
  'sessions',
  'cli',
  'turn',
  'host',
  'serve',
  'gateway',
  'gateway-pg',
  'terminal',
  'tui',
] as const;

function format(value: number | undefined, digits = 3): string {
  if (value === undefined || Number.isNaN(value)) return '-';
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(digits);
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const names = asked.length > 0 ? asked : [...ALL];
  const rows: BenchRow[] = [];
  for (const name of names) {
    if (!(ALL as readonly string[]).includes(name)) {
      console.error(`unknown benchmark '${name}'; known: ${ALL.join(', ')}`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`running ${name}…\n`);
    try {
      const module = (await import(`./${name.replace(/-/g, '_')}.js`)) as BenchModule;
      rows.push(...(await module.run()));
    } catch (error) {
      const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
      console.error(`benchmark ${name} failed: ${text}`);
      process.exitCode = 1;
    }
  }
  const header = ['bench', 'metric', 'lich', 'baseline', 'unit', 'ratio', 'target', 'ok'];
  const table = rows.map((row) => [
    row.bench,
    row.metric,
    format(row.lich),
    row.baseline === undefined
      ? '-'
      : `${format(row.baseline)} (${row.baseline_name ?? 'baseline'})`,
    row.unit,
    format(row.ratio),
    row.target ?? '-',
    row.pass === undefined ? '-' : row.pass ? 'yes' : 'NO',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...table.map((line) => (line[column] ?? '').length)),
  );
  const print = (line: string[]) =>
    console.log(line.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  '));
  print(header);
  print(widths.map((width) => '-'.repeat(width)));
  for (const line of table) print(line);
}

await main();
// The table is out: a benchmark that left a handle open (a TUI run in this process) must not
// keep the run from ending.
process.exit(process.exitCode ?? 0);

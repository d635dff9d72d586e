/**
 * Runs the benchmarks named on the command line (all when none) and prints one table.
 * Usage: `pnpm bench`, `pnpm bench:<name>`, or `pnpm bench:<name> <case>…` for some cases of a
 * benchmark that has them (`pnpm bench:tui keys`).
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
  'checkpoint',
  'cost',
] as const;

function format(value: number | undefined, digits = 3): string {
  if (value === undefined || Number.isNaN(value)) return '-';
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(digits);
}

/** Bench names, each followed by the cases asked of it (`tui keys streaming`: two cases of tui). */
function parse(args: readonly string[]): { name: string; cases: string[] }[] | string {
  const asked: { name: string; cases: string[] }[] = [];
  for (const arg of args) {
    if ((ALL as readonly string[]).includes(arg)) asked.push({ name: arg, cases: [] });
    else if (asked.length > 0) asked[asked.length - 1]!.cases.push(arg);
    else return `unknown benchmark '${arg}'; known: ${ALL.join(', ')}`;
  }
  return asked.length > 0 ? asked : ALL.map((name) => ({ name, cases: [] }));
}

async function main(): Promise<void> {
  const asked = parse(process.argv.slice(2));
  if (typeof asked === 'string') {
    console.error(asked);
    process.exitCode = 2;
    return;
  }
  const rows: BenchRow[] = [];
  for (const { name, cases } of asked) {
    process.stderr.write(`running ${name}${cases.length > 0 ? ` (${cases.join(', ')})` : ''}…\n`);
    try {
      const module = (await import(`./${name.replace(/-/g, '_')}.js`)) as BenchModule;
      const unknown = cases.filter((name) => !(module.cases ?? []).includes(name));
      if (unknown.length > 0) {
        const known = module.cases === undefined ? 'none' : module.cases.join(', ');
        console.error(`${name} has no case '${unknown.join("', '")}'; its cases: ${known}`);
        process.exitCode = 2;
        continue;
      }
      rows.push(...(await module.run(cases)));
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

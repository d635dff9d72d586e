#!/usr/bin/env node
/**
 * The `lich` executable. It imports nothing but what the command asks for: `--version` reads
 * package.json and exits, everything else loads `main.js` (and main loads one command).
 */
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === '-V')) {
  const { version } = await import('./version.js');
  process.stdout.write(`${version()}\n`);
} else {
  const { main } = await import('./main.js');
  process.exitCode = await main(argv);
}

#!/usr/bin/env node
/**
 * The `lich` executable (package.json `bin`). A CommonJS file on purpose: `lich --version` then
 * runs without starting Node's ES module loader at all, reading package.json and exiting. Every
 * other command imports `main`: from `bundle/main.mjs` when the build made one (a few files
 * instead of hundreds of small modules starts much faster), else from the compiled `main.js`.
 */
import fs = require('node:fs');
import path = require('node:path');
import url = require('node:url');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === '-V')) {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'),
  ) as {
    version: string;
  };
  process.stdout.write(`${manifest.version}\n`);
} else {
  const bundled = path.join(__dirname, 'bundle', 'main.mjs');
  const entry = fs.existsSync(bundled) ? bundled : path.join(__dirname, 'main.js');
  import(url.pathToFileURL(entry).href)
    .then((module: { main(argv: readonly string[]): Promise<number> }) => module.main(argv))
    .then((code) => {
      process.exitCode = code;
    });
}

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

/**
 * Whether the bundle in `folder` is at least as new as every package it was made from. A package
 * rebuilt since (its `.tsbuildinfo` newer) makes it stale; inputs that do not exist (an installed
 * copy, laid out differently) do not.
 */
function fresh(folder: string): boolean {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'inputs.json'), 'utf8')) as {
      built: number;
      inputs: string[];
    };
    return manifest.inputs.every((input) => {
      try {
        return fs.statSync(path.resolve(folder, input)).mtimeMs <= manifest.built;
      } catch {
        return true;
      }
    });
  } catch {
    return false;
  }
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === '-V')) {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'),
  ) as {
    version: string;
  };
  process.stdout.write(`${manifest.version}\n`);
} else {
  const folder = path.join(__dirname, 'bundle');
  const entry = fresh(folder) ? path.join(folder, 'main.mjs') : path.join(__dirname, 'main.js');
  import(url.pathToFileURL(entry).href)
    .then((module: { main(argv: readonly string[]): Promise<number> }) => module.main(argv))
    .then((code) => {
      process.exitCode = code;
    });
}

#!/usr/bin/env node
/**
 * The `lich` executable (package.json `bin`). A CommonJS file on purpose: `lich --version` then
 * runs without starting Node's ES module loader at all, reading package.json and exiting. Every
 * other command runs `main` from the CommonJS bundle the build made in `bundle/` (a few files
 * instead of hundreds of small modules, compiled from a V8 code cache after the first run: see
 * `bundle_loader.cts`), else, when there is none or it is older than a package it was made from,
 * from the compiled `main.js`.
 */
import fs = require('node:fs');
import path = require('node:path');
import url = require('node:url');

import type * as BundleLoader from './bundle_loader.cjs';

type Main = (argv: readonly string[]) => Promise<number>;

function run(argv: readonly string[]): void {
  const folder = path.join(__dirname, 'bundle');
  // Loaded here, not at the top: `--version` must load nothing but this file.
  const loader = require('./bundle_loader.cjs') as typeof BundleLoader;
  const manifest = loader.read_manifest(folder);
  if (manifest !== null && loader.bundle_fresh(folder, manifest)) {
    const loaded = loader.load_bundle(folder, manifest, {
      cache_root: loader.code_cache_root(process.env),
    });
    (loaded.exports.main as Main)(argv).then((code) => {
      process.exitCode = code;
      loaded.save_cache();
    });
    return;
  }
  import(url.pathToFileURL(path.join(__dirname, 'main.js')).href)
    .then((module: { main: Main }) => module.main(argv))
    .then((code) => {
      process.exitCode = code;
    });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'),
  ) as {
    version: string;
  };
  process.stdout.write(`${manifest.version}\n`);
} else {
  run(argv);
}

#!/usr/bin/env node
/**
 * The `lich` executable (package.json `bin`). A CommonJS file on purpose: `lich --version` then
 * runs without starting Node's ES module loader at all, reading package.json and exiting. Every
 * other command runs `main` from the CommonJS bundle the build made in `bundle/` (a few files
 * instead of hundreds of small modules, compiled from a V8 code cache after the first run: see
 * `bundle_loader.cts`), else, when there is none or it is older than a package it was made from,
 * from the compiled `main.js`. Where Node has a compile cache of its own (22.1+), it is on too.
 */
import fs = require('node:fs');
import path = require('node:path');
import url = require('node:url');

import type * as BundleLoader from './bundle_loader.cjs';

type Main = (argv: readonly string[]) => Promise<number>;

/** When a command still running writes the code cache of the bundle's chunks it loaded. */
const CODE_CACHE_SAVE_MS = 1000;

/**
 * Node's own compile cache (`module.enableCompileCache`, Node 22.1 and later) for what loads
 * outside the bundle: the unbundled fallback, `@lich/mcp`, the ACP SDK, plugins. Node 20 has
 * none, and there this does nothing; the bundle's chunks have their own cache either way.
 */
function enable_compile_cache(cache_root: string | null): void {
  if (cache_root === null) return;
  const node_module = require('node:module') as {
    enableCompileCache?: (directory?: string) => unknown;
  };
  try {
    node_module.enableCompileCache?.(path.join(cache_root, 'node'));
  } catch {
    // a cache folder that cannot be made costs only the compile it would have saved
  }
}

function run(argv: readonly string[]): void {
  const folder = path.join(__dirname, 'bundle');
  // Loaded here, not at the top: `--version` must load nothing but this file.
  const loader = require('./bundle_loader.cjs') as typeof BundleLoader;
  const cache_root = loader.code_cache_root(process.env);
  enable_compile_cache(cache_root);
  const manifest = loader.fresh_manifest(folder);
  if (manifest !== null) {
    const loaded = loader.load_bundle(folder, manifest, { cache_root });
    (loaded.exports.main as Main)(argv).then((code) => {
      process.exitCode = code;
      loaded.save_cache();
    });
    // A long command (the TUI, chat, serve) that is killed, or whose terminal closes, never
    // reaches the save above: write what is compiled by then (chunks loaded later are written
    // at the end). Unref'd: it never keeps a finished command alive.
    setTimeout(() => loaded.save_cache(), CODE_CACHE_SAVE_MS).unref();
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

// Bundles the compiled CLI (dist/main.js and what it imports) into dist/bundle/, so `lich` loads
// a few files instead of some six hundred modules: Node 20 spends more time resolving and
// linking many small ES modules than running them. `dist/bin.cjs` uses the bundle when it exists.
// The chunks are CommonJS, loaded by `dist/bundle_loader.cjs` through `vm.Script` with a V8 code
// cache; code compiled that way cannot `import()` on Node 20, so each `import()` left in the
// output (of a package outside the bundle, a plugin, a Node built-in) is renamed
// `__lich_import()`, a function the loader passes in.
// Kept outside: Node built-ins; @vscode/ripgrep (it finds its binary next to itself); the MCP
// client (@lich/mcp and its SDK), loaded only when an MCP server is enabled; @lich/acp and the ACP
// SDK, loaded only by `lich acp`; and the packages the
// one-shot path must never load (ink, react, ws, chat-platform SDKs), so that any import of them
// stays visible as a module load.
//
// `--if-stale` makes them only when one is missing or stale by the loader's own rule
// (`fresh_manifest` in `src/bundle_loader.cts`): what the test suite's global setup and the
// benches run, so the rule is written once.
import { chmod, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const OUT_DIR = join(CLI_DIR, 'dist', 'bundle');
/** Every bundle this script makes: the CLI's and the TUI's. */
const BUNDLE_DIRS = [OUT_DIR, join(CLI_DIR, 'dist', 'tui')];

// `dist/bin.cjs` runs by itself (a link to it on PATH is a `lich` command from a clone, C42)
await chmod(join(CLI_DIR, 'dist', 'bin.cjs'), 0o755);

if (process.argv.includes('--if-stale')) {
  let fresh = false;
  try {
    const loader = createRequire(import.meta.url)(join(CLI_DIR, 'dist', 'bundle_loader.cjs'));
    fresh = BUNDLE_DIRS.every((folder) => loader.fresh_manifest(folder) !== null);
  } catch {
    // no compiled loader yet: make them
  }
  if (fresh) process.exit(0);
}

// Loaded only when there is something to make.
const { rolldown } = await import('rolldown');
const { LICH_IMPORT, write_manifest } = await import('./bundle_shared.mjs');
const { build_tui_bundle } = await import('./tui_bundle.mjs');

const EXTERNAL = [
  /^node:/,
  /^@vscode\/ripgrep/,
  /^@lich\/mcp$/,
  /^@modelcontextprotocol\//,
  /^(ink|react|react-dom|ws|grammy|discord\.js|tmi\.js)(\/|$)/,
  /^@lich\/(tui|serve|gateway|acp|store-postgres)/,
  /^pg(-[a-z-]+)?(\/|$)/,
  /^@agentclientprotocol\//,
  /^sharp(\/|$)/,
];

await rm(OUT_DIR, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(CLI_DIR, 'dist', 'main.js') },
  platform: 'node',
  cwd: CLI_DIR,
  external: EXTERNAL,
  logLevel: 'warn',
  plugins: [LICH_IMPORT],
});
const { output } = await bundle.write({
  dir: OUT_DIR,
  format: 'cjs',
  entryFileNames: '[name].cjs',
  chunkFileNames: '[name]-[hash].cjs',
  sourcemap: false,
  // non-ASCII characters escaped: an ASCII chunk is read as latin1, a one-byte string, not
  // decoded from UTF-8 into a two-byte one (see `source_encoding` in bundle_shared.mjs)
  charset: 'ascii',
  // JSDoc is for readers of the sources; dropped here it is less to read and hold at every start.
  comments: { legal: true, annotation: false, jsdoc: false },
});
await bundle.close();

await write_manifest(OUT_DIR, output, 'main.cjs');

// The TUI, in a bundle of its own that only `lich tui` loads (see tui_bundle.mjs).
await build_tui_bundle(CLI_DIR);

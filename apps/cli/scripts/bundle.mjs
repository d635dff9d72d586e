// Bundles the compiled CLI (dist/main.js and what it imports) into dist/bundle/, so `lich` loads
// a few files instead of some six hundred modules: Node 20 spends more time resolving and
// linking many small ES modules than running them. `dist/bin.js` uses the bundle when it exists.
// Kept outside: Node built-ins; @vscode/ripgrep (it finds its binary next to itself); the MCP
// client (@lich/mcp and its SDK), loaded only when an MCP server is enabled; and the packages the
// one-shot path must never load (ink, react, ws, chat-platform SDKs), so that any import of them
// stays visible as a module load.
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const OUT_DIR = join(CLI_DIR, 'dist', 'bundle');

const EXTERNAL = [
  /^node:/,
  /^@vscode\/ripgrep/,
  /^@lich\/mcp$/,
  /^@modelcontextprotocol\//,
  /^(ink|react|react-dom|ws|grammy|discord\.js|tmi\.js)(\/|$)/,
  /^@lich\/(tui|serve|gateway)/,
];

await rm(OUT_DIR, { recursive: true, force: true });
const bundle = await rolldown({
  input: { main: join(CLI_DIR, 'dist', 'main.js') },
  platform: 'node',
  cwd: CLI_DIR,
  external: EXTERNAL,
  logLevel: 'warn',
});
const { output } = await bundle.write({
  dir: OUT_DIR,
  format: 'esm',
  entryFileNames: '[name].mjs',
  chunkFileNames: '[name]-[hash].mjs',
  sourcemap: false,
});
await bundle.close();

// The build info of every compiled package the bundle took code from: `bin.cjs` skips the bundle
// when one of them is newer (a package rebuilt with `tsc -b` since), so it never runs stale code.
const packages = new Set();
for (const chunk of output) {
  for (const id of chunk.type === 'chunk' ? chunk.moduleIds : []) {
    const at = id.lastIndexOf('/dist/');
    if (at !== -1 && !id.includes('/node_modules/.pnpm/')) packages.add(id.slice(0, at));
  }
}
const inputs = [...packages]
  .map((folder) => join(folder, 'dist', '.tsbuildinfo'))
  .filter((file) => existsSync(file))
  .map((file) => relative(OUT_DIR, file));
await writeFile(
  join(OUT_DIR, 'inputs.json'),
  `${JSON.stringify({ built: Date.now(), inputs }, null, 2)}\n`,
);

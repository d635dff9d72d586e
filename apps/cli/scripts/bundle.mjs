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
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { parseAst } from 'rolldown/parseAst';

const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const OUT_DIR = join(CLI_DIR, 'dist', 'bundle');

const EXTERNAL = [
  /^node:/,
  /^@vscode\/ripgrep/,
  /^@lich\/mcp$/,
  /^@modelcontextprotocol\//,
  /^(ink|react|react-dom|ws|grammy|discord\.js|tmi\.js)(\/|$)/,
  /^@lich\/(tui|serve|gateway|acp|store-postgres)/,
  /^pg(-[a-z-]+)?(\/|$)/,
  /^@agentclientprotocol\//,
];

/** Every node of an ESTree `tree`, depth first. */
function* walk(tree) {
  const stack = [tree];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node !== null && typeof node === 'object') {
      if (typeof node.type === 'string') yield node;
      for (const [key, value] of Object.entries(node)) {
        if (key !== 'type' && value !== null && typeof value === 'object') stack.push(value);
      }
    }
  }
}

/** Renames each `import(` of a chunk to `__lich_import(`; refuses `import.meta`, which CJS lacks. */
const LICH_IMPORT = {
  name: 'lich-import',
  renderChunk(code, chunk) {
    const starts = [];
    for (const node of walk(parseAst(code))) {
      if (node.type === 'ImportExpression') starts.push(node.start);
      if (node.type === 'MetaProperty' && node.meta.name === 'import') {
        throw new Error(`${chunk.fileName}: import.meta is left in a CommonJS chunk`);
      }
    }
    if (starts.length === 0) return null;
    let out = '';
    let from = 0;
    for (const start of starts.sort((a, b) => a - b)) {
      if (code.slice(start, start + 6) !== 'import') {
        throw new Error(`${chunk.fileName}: no import( at ${start}`);
      }
      out += `${code.slice(from, start)}__lich_import`;
      from = start + 6;
    }
    return { code: out + code.slice(from), map: null };
  },
};

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
  // JSDoc is for readers of the sources; dropped here it is less to read and hold at every start.
  comments: { legal: true, annotation: false, jsdoc: false },
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
// The loader keys its code cache by this hash: V8 checks only a cache's source length, so code
// cached for another build of the same length must never be offered.
const hash = createHash('sha256');
for (const chunk of [...output].sort((a, b) => a.fileName.localeCompare(b.fileName))) {
  hash
    .update(chunk.fileName)
    .update('\0')
    .update(chunk.type === 'chunk' ? chunk.code : chunk.source);
}
await writeFile(
  join(OUT_DIR, 'inputs.json'),
  `${JSON.stringify({ built: Date.now(), inputs, entry: 'main.cjs', hash: hash.digest('hex').slice(0, 16) }, null, 2)}\n`,
);

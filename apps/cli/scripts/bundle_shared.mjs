// What the CLI's bundle and the TUI's share: the `import()` renaming every CommonJS chunk the
// loader runs needs, and the manifest (`inputs.json`) the loader reads.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAst } from 'rolldown/parseAst';

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
export const LICH_IMPORT = {
  name: 'lich-import',
  renderChunk(code, chunk) {
    // walking the tree of a large chunk takes seconds; most chunks have no import( at all
    if (!/\bimport\s*[(.]/.test(code)) return null;
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

/**
 * Writes `inputs.json` into `out_dir` for a bundle whose chunks are `output` and whose entry is
 * `entry`. Its inputs are the build info of every compiled package the bundle took code from:
 * the loader skips the bundle when one of them is newer (a package rebuilt with `tsc -b` since),
 * so it never runs stale code. Its hash keys the code cache: V8 checks only a cache's source
 * length, so code cached for another build of the same length must never be offered. Its
 * `source_encoding` says how the loader reads the chunks.
 */
export async function write_manifest(out_dir, output, entry) {
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
    .map((file) => relative(out_dir, file));
  const hash = createHash('sha256');
  for (const chunk of [...output].sort((a, b) => a.fileName.localeCompare(b.fileName))) {
    hash
      .update(chunk.fileName)
      .update('\0')
      .update(chunk.type === 'chunk' ? chunk.code : chunk.source);
  }
  // Every chunk ASCII (the bundles are written with `charset: 'ascii'`): the loader reads them as
  // latin1, the same text as a one-byte string, instead of decoding UTF-8 into a two-byte string
  // (about 10 ms at every start, and twice the memory). A chunk left with another character is
  // read as UTF-8.
  const ascii = output.every(
    (chunk) => chunk.type !== 'chunk' || !/[\u0080-\uffff]/.test(chunk.code),
  );
  const manifest = {
    built: Date.now(),
    inputs,
    entry,
    hash: hash.digest('hex').slice(0, 16),
    source_encoding: ascii ? 'latin1' : 'utf8',
  };
  await writeFile(join(out_dir, 'inputs.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

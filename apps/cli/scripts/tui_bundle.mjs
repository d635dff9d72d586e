// Bundles `@lich/tui` (the TUI, ink, react, yoga, marked…) into dist/tui/: one CommonJS file
// (`tui.cjs`, plus a chunk for the `--connect` protocol client) that `lich tui` loads through
// the same loader and V8 code cache as the CLI's bundle (`src/tui_module.ts`). Unbundled, ink
// and react are some two hundred ES modules, and resolving and linking them holds the first frame
// back by more than a node start-up. The CLI's own bundle never contains any of it.
//
// Three things in ink's tree do not fit a CommonJS chunk, and are changed here, each by an exact
// match that fails the build when a new version no longer has it:
// - yoga-layout's entry awaits its WebAssembly at the top level. It is replaced by a module
//   whose default export is filled in when the engine is ready, and the bundle exports that
//   promise as `ready` (ink touches yoga only when it renders). Its loader also fetches the wasm
//   (a `data:` URL) with `fetch`, which loads undici (tens of ms); it decodes it with `Buffer`.
// - ink's reconciler imports its devtools with a top-level await when DEV=true: dropped.
// - is-in-ci: `lich tui` runs only on a terminal, where a CI variable left in the shell must not
//   turn the live screen into a final-frame-only log.
import { readFile, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { rolldown } from 'rolldown';
import { LICH_IMPORT, write_manifest } from './bundle_shared.mjs';

const ENTRY = '\0lich-tui-entry';
const YOGA = '\0lich-yoga';

/** Replaces `from` with `to` in `code`, or fails the build naming `what`. */
function exactly(code, from, to, what) {
  if (!code.includes(from)) {
    throw new Error(`tui bundle: ${what} changed; update scripts/tui_bundle.mjs`);
  }
  return code.replace(from, to);
}

/** The plugin that makes ink's tree a CommonJS bundle (see the top of this file). */
function tui_plugin(tui_index) {
  let yoga_load = null;
  return {
    name: 'lich-tui',
    async buildStart() {
      const ink = await this.resolve('ink', tui_index);
      const load = ink && (await this.resolve('yoga-layout/load', ink.id));
      if (!load) throw new Error('tui bundle: yoga-layout/load not found from ink');
      yoga_load = load.id;
    },
    resolveId(source) {
      if (source === ENTRY || source === YOGA) return source;
      if (source === 'yoga-layout') return YOGA;
      return null;
    },
    load(id) {
      if (id === ENTRY) {
        return [
          `export * from ${JSON.stringify(tui_index)};`,
          `export { yoga_ready as ready } from ${JSON.stringify(YOGA)};`,
        ].join('\n');
      }
      if (id === YOGA) {
        return [
          `import { loadYoga } from ${JSON.stringify(yoga_load)};`,
          'const Yoga = {};',
          'export default Yoga;',
          'export const yoga_ready = loadYoga().then((engine) => { Object.assign(Yoga, engine); });',
        ].join('\n');
      }
      return null;
    },
    transform(code, id) {
      if (/\/yoga-layout\/dist\/binaries\/yoga-wasm-base64-esm\.js$/.test(id)) {
        let out = exactly(
          code,
          'var _scriptDir = import.meta.url;',
          'var _scriptDir = "";',
          'yoga',
        );
        out = exactly(
          out,
          'function ya(){return w||"function"!=typeof fetch?',
          'function ya(){return true?',
          "yoga's wasm loader",
        );
        return exactly(
          out,
          'var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c',
          'var d=new Uint8Array(Buffer.from(a.slice(37),"base64"))',
          "yoga's base64 decoder",
        );
      }
      if (/\/ink\/build\/reconciler\.js$/.test(id)) {
        const out = exactly(code, "await import('./devtools.js');", 'void 0;', 'ink devtools');
        return exactly(
          out,
          'await loadPackageJson()',
          '{ name: undefined, version: undefined }',
          "ink's package.json read",
        );
      }
      if (/\/is-in-ci\/index\.js$/.test(id)) return 'export default false;';
      return null;
    },
  };
}

/**
 * Writes dist/tui/ (chunks and `inputs.json`) from the compiled `@lich/tui` the CLI depends on.
 */
export async function build_tui_bundle(cli_dir) {
  const out_dir = join(cli_dir, 'dist', 'tui');
  // the package as the CLI depends on it (its `import` export; it has no `require` one)
  const tui_dir = await realpath(join(cli_dir, 'node_modules', '@lich', 'tui'));
  const manifest = JSON.parse(await readFile(join(tui_dir, 'package.json'), 'utf8'));
  const tui_index = join(tui_dir, manifest.exports['.'].import);
  await rm(out_dir, { recursive: true, force: true });
  const bundle = await rolldown({
    input: { tui: ENTRY },
    platform: 'node',
    cwd: tui_dir,
    // ws: only `--connect` over a WebSocket would load it
    external: [/^node:/, /^ws(\/|$)/],
    logLevel: 'warn',
    // react picks its build by NODE_ENV at run time; the development one is twice the size
    transform: { define: { 'process.env.NODE_ENV': '"production"' } },
    plugins: [tui_plugin(tui_index), LICH_IMPORT],
  });
  const { output } = await bundle.write({
    dir: out_dir,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    sourcemap: false,
    charset: 'ascii',
    comments: { legal: true, annotation: false, jsdoc: false },
  });
  await bundle.close();
  await write_manifest(out_dir, output, 'tui.cjs');
}

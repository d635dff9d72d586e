/**
 * Loads the CommonJS bundle that `scripts/bundle.mjs` writes to `dist/bundle/`, with a V8 code
 * cache. Node 20 has no compile cache of its own (`module.enableCompileCache` came in 22), so
 * each chunk is compiled through `vm.Script` with the `cachedData` a previous run saved; V8 then
 * skips parsing and compiling what the cache holds, functions compiled lazily during that run
 * included. A CommonJS file like `bin.cjs`, so the ES module loader is not started for it.
 */
import fs = require('node:fs');
import path = require('node:path');
import url = require('node:url');
import vm = require('node:vm');
import node_module = require('node:module');

/** Code caches of other bundles or Node versions older than this are removed on the next save. */
const STALE_CACHE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Where code caches go: `$LICH_CODE_CACHE_DIR`, else `$XDG_CACHE_HOME/lich/code-cache`, else
 * `%LOCALAPPDATA%\lich\code-cache` on Windows, else `~/.cache/lich/code-cache`. Null when
 * `LICH_NO_CODE_CACHE=1` or no home is known.
 */
function code_cache_root(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.LICH_NO_CODE_CACHE === '1') return null;
  if (env.LICH_CODE_CACHE_DIR) return env.LICH_CODE_CACHE_DIR;
  const base =
    env.XDG_CACHE_HOME ||
    (process.platform === 'win32' ? env.LOCALAPPDATA : undefined) ||
    (env.HOME ? path.join(env.HOME, '.cache') : undefined);
  return base ? path.join(base, 'lich', 'code-cache') : null;
}

/** The manifest of the bundle in `folder`, or null when there is none or it cannot be read. */
function read_manifest(folder: string): bundle_loader.BundleManifest | null {
  try {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(folder, 'inputs.json'), 'utf8'),
    ) as Partial<bundle_loader.BundleManifest>;
    if (
      typeof manifest.built !== 'number' ||
      !Array.isArray(manifest.inputs) ||
      typeof manifest.entry !== 'string' ||
      typeof manifest.hash !== 'string' ||
      (manifest.source_encoding !== undefined &&
        manifest.source_encoding !== 'latin1' &&
        manifest.source_encoding !== 'utf8')
    ) {
      return null;
    }
    return manifest as bundle_loader.BundleManifest;
  } catch {
    return null;
  }
}

/**
 * Whether the bundle is at least as new as every package it was made from. A package rebuilt
 * since (its `.tsbuildinfo` newer) makes it stale; inputs that do not exist (an installed copy,
 * laid out differently) do not.
 */
function bundle_fresh(folder: string, manifest: bundle_loader.BundleManifest): boolean {
  return manifest.inputs.every((input) => {
    try {
      return fs.statSync(path.resolve(folder, input)).mtimeMs <= manifest.built;
    } catch {
      return true;
    }
  });
}

/**
 * The manifest of the bundle in `folder` when it may be used, else null: the one rule for "is the
 * bundle fresh". The bin, the TUI loader, `scripts/bundle.mjs --if-stale`, the test suite's global
 * setup and the benches all ask it.
 */
function fresh_manifest(folder: string): bundle_loader.BundleManifest | null {
  const manifest = read_manifest(folder);
  return manifest !== null && bundle_fresh(folder, manifest) ? manifest : null;
}

/** The parameters every chunk is wrapped in; `__lich_import` stands for `import()` (see below). */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname, __lich_import) {';
const WRAPPER_TAIL = '\n})';

type ChunkFunction = (
  exports: Record<string, unknown>,
  require: NodeJS.Require,
  module: { exports: Record<string, unknown> },
  filename: string,
  dirname: string,
  lich_import: (specifier: string) => Promise<unknown>,
) => void;

/** A built-in module shaped as `import()` gives it: its exports, and itself as `default`. */
function builtin(specifier: string): Record<string, unknown> {
  const exports = require(specifier) as Record<string, unknown>;
  return { ...exports, default: exports };
}

function read_cache(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function write_atomically(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, data);
    fs.renameSync(temporary, file);
  } catch {
    try {
      fs.unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}

/** Removes the caches of other bundles and Node versions not written to for a month. */
function prune(root: string, keep: string): void {
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(root)) {
      if (name === keep) continue;
      const folder = path.join(root, name);
      if (now - fs.statSync(folder).mtimeMs > STALE_CACHE_MS) {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    }
  } catch {
    // another process pruned it first, or the folder is not ours to clean
  }
}

/**
 * Loads the bundle in `folder` and returns its entry's exports. Chunks are loaded on first
 * `require` (the bundle's `import()` of its own chunks becomes a `require`), each compiled with
 * the code cache for this bundle hash, Node version and architecture when there is one. A cache
 * V8 rejects (another V8, other flags, a damaged file) is ignored: the chunk is compiled from its
 * source and the cache rewritten by `save_cache`. Dynamic `import()` of packages outside the
 * bundle (rewritten to `__lich_import` at build time, since code compiled by `vm.Script` cannot
 * `import()` on Node 20) goes through Node's ES module loader. Throws what the entry throws.
 */
function load_bundle(
  folder: string,
  manifest: bundle_loader.BundleManifest,
  options: bundle_loader.LoadBundleOptions,
): bundle_loader.LoadedBundle {
  const key = `${manifest.hash}-${process.version}-${process.arch}`;
  const cache_folder = options.cache_root === null ? null : path.join(options.cache_root, key);
  const encoding = manifest.source_encoding ?? 'utf8';
  const loaded = new Map<string, { exports: Record<string, unknown> }>();
  const loads: bundle_loader.ChunkLoad[] = [];
  const unsaved: { script: vm.Script; cache_file: string }[] = [];

  const load_chunk = (file: string): Record<string, unknown> => {
    const known = loaded.get(file);
    if (known) return known.exports;
    const module = { exports: {} as Record<string, unknown> };
    loaded.set(file, module);
    const filename = path.join(folder, file);
    const source = fs.readFileSync(filename, encoding);
    const cache_file = cache_folder === null ? null : path.join(cache_folder, `${file}.cache`);
    const cached = cache_file === null ? undefined : read_cache(cache_file);
    const script = new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, {
      filename,
      ...(cached === undefined ? {} : { cachedData: cached }),
    });
    const state = cached === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
    loads.push({ file, cache: state });
    if (state !== 'hit' && cache_file !== null) unsaved.push({ script, cache_file });
    const external = node_module.createRequire(filename);
    const chunk_require = ((specifier: string) =>
      specifier.startsWith('./') && specifier.endsWith('.cjs')
        ? load_chunk(specifier.slice(2))
        : external(specifier)) as NodeJS.Require;
    chunk_require.resolve = external.resolve;
    chunk_require.cache = external.cache;
    const lich_import = (specifier: string): Promise<unknown> => {
      // A built-in through `require`: the first `import()` starts the ES module loader (~2 ms).
      if (specifier.startsWith('node:')) return Promise.resolve().then(() => builtin(specifier));
      // the chunk's URL is made here, when needed: made for every chunk loaded, it cost ~3 ms
      const base = url.pathToFileURL(filename);
      return import(specifier.startsWith('.') ? new URL(specifier, base).href : specifier);
    };
    const run = script.runInThisContext() as ChunkFunction;
    run(module.exports, chunk_require, module, filename, folder, lich_import);
    return module.exports;
  };

  const exports = load_chunk(manifest.entry);
  return {
    exports,
    loads,
    save_cache() {
      if (cache_folder === null || options.cache_root === null || unsaved.length === 0) return;
      try {
        fs.mkdirSync(cache_folder, { recursive: true });
      } catch {
        return;
      }
      for (const { script, cache_file } of unsaved.splice(0)) {
        try {
          write_atomically(cache_file, script.createCachedData());
        } catch {
          // a script V8 cannot serialise: it is compiled from source next time
        }
      }
      prune(options.cache_root, key);
    },
  };
}

/** The loader's API, for `bin.cjs` and tests (`require('./bundle_loader.cjs')`). */
const bundle_loader = { code_cache_root, read_manifest, bundle_fresh, fresh_manifest, load_bundle };

declare namespace bundle_loader {
  /** What `scripts/bundle.mjs` writes to `dist/bundle/inputs.json`. */
  export interface BundleManifest {
    /** When the bundle was built (ms since the epoch). */
    built: number;
    /** The build info files of the packages it was made from, relative to the bundle folder. */
    inputs: string[];
    /** The entry chunk's file name (`main.cjs`). */
    entry: string;
    /** A hash of every chunk's content: code cached for another bundle is never used. */
    hash: string;
    /**
     * How to read the chunks: `latin1` when every one is ASCII (then the same text, as a one-byte
     * string, without decoding UTF-8), else (or when absent, in older bundles) `utf8`.
     */
    source_encoding?: 'latin1' | 'utf8';
  }

  /** How `load_bundle` uses the code cache. */
  export interface LoadBundleOptions {
    /** The folder holding this machine's code caches, or null for none (see `code_cache_root`). */
    cache_root: string | null;
  }

  /** What one chunk's load did with the cache, for tests and `LICH_DEBUG`. */
  export interface ChunkLoad {
    file: string;
    /** `hit`: V8 took the cached code; `rejected`: there was a cache V8 refused; `miss`: none. */
    cache: 'hit' | 'rejected' | 'miss';
  }

  /** A loaded bundle: its entry's exports, and a way to keep the code compiled during this run. */
  export interface LoadedBundle {
    exports: Record<string, unknown>;
    /** The chunks loaded so far, in order. */
    readonly loads: readonly ChunkLoad[];
    /**
     * Writes a code cache for each chunk that had no usable one, taken now so that the functions
     * this run compiled are in it. Best-effort: never throws; a failed write leaves no partial file.
     */
    save_cache(): void;
  }
}

export = bundle_loader;

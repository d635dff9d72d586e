import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeServer, make_temp_dir, start_openai_server, type TempDir } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as BundleLoader from '../src/bundle_loader.cjs';
import { make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

// The built loader, as bin.cjs requires it (the global setup builds the CLI).
const loader = createRequire(import.meta.url)('../dist/bundle_loader.cjs') as typeof BundleLoader;

const CHUNKS: Record<string, string> = {
  'main.cjs': [
    'const helper = require("./helper-abc.cjs");',
    'const path = require("node:path");',
    'exports.main = async (argv) => {',
    '  const url = await __lich_import("node:url");',
    '  const esm = await __lich_import("./esm.mjs");',
    '  return [helper.twice(argv.length), path.basename(__filename), typeof url.default.pathToFileURL, esm.answer].join(" ");',
    '};',
  ].join('\n'),
  'helper-abc.cjs': 'exports.twice = (n) => n * 2;',
  'esm.mjs': 'export const answer = 42;',
};

function cache_key(manifest: BundleLoader.BundleManifest): string {
  return `${manifest.hash}-${process.version}-${process.arch}`;
}

async function make_bundle(
  temp: TempDir,
  hash = 'hash0001',
): Promise<{
  folder: string;
  manifest: BundleLoader.BundleManifest;
}> {
  const folder = join(temp.path, 'bundle');
  await mkdir(folder, { recursive: true });
  for (const [name, text] of Object.entries(CHUNKS)) await writeFile(join(folder, name), text);
  const manifest = { built: Date.now(), inputs: [], entry: 'main.cjs', hash };
  await writeFile(join(folder, 'inputs.json'), JSON.stringify(manifest));
  return { folder, manifest };
}

const LOADER = fileURLToPath(new URL('../dist/bundle_loader.cjs', import.meta.url));

/** What one process that loaded the bundle saw. */
interface LoadReport {
  result: string;
  loads: BundleLoader.ChunkLoad[];
}

/**
 * Loads the bundle in a new process (V8 reuses code compiled earlier in the same process, cache
 * or not), runs its `main(argv)`, saves the cache and reports.
 */
function load_in_child(
  folder: string,
  manifest: BundleLoader.BundleManifest,
  cache_root: string | null,
  argv: string[] = [],
): LoadReport {
  const script = `
    const loader = require(${JSON.stringify(LOADER)});
    const bundle = loader.load_bundle(${JSON.stringify(folder)}, ${JSON.stringify(manifest)}, {
      cache_root: ${JSON.stringify(cache_root)},
    });
    bundle.exports.main(${JSON.stringify(argv)}).then((result) => {
      bundle.save_cache();
      process.stdout.write(JSON.stringify({ result, loads: bundle.loads }));
    });
  `;
  const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  return JSON.parse(output) as LoadReport;
}

describe('the bundle loader', () => {
  let temp: TempDir;

  beforeEach(async () => {
    temp = await make_temp_dir({ prefix: 'lich-code-cache-' });
  });

  afterEach(async () => {
    await temp.cleanup();
  });

  it('runs the chunks, then runs them from the cache it saved', async () => {
    const { folder, manifest } = await make_bundle(temp);
    const cache_root = join(temp.path, 'cache');
    const first = load_in_child(folder, manifest, cache_root, ['a', 'b']);
    expect(first.result).toBe('4 main.cjs function 42');
    expect(first.loads).toEqual([
      { file: 'main.cjs', cache: 'miss' },
      { file: 'helper-abc.cjs', cache: 'miss' },
    ]);
    expect((await readdir(join(cache_root, cache_key(manifest)))).sort()).toEqual([
      'helper-abc.cjs.cache',
      'main.cjs.cache',
    ]);

    const second = load_in_child(folder, manifest, cache_root, ['a']);
    expect(second.result).toBe('2 main.cjs function 42');
    expect(second.loads.map((load) => load.cache)).toEqual(['hit', 'hit']);
  });

  it('falls back to the source when V8 rejects a damaged cache, and rewrites it', async () => {
    const { folder, manifest } = await make_bundle(temp);
    const cache_root = join(temp.path, 'cache');
    load_in_child(folder, manifest, cache_root);
    const cache_file = join(cache_root, cache_key(manifest), 'main.cjs.cache');
    const damage = Buffer.alloc((await readFile(cache_file)).length, 7);
    await writeFile(cache_file, damage);

    const damaged = load_in_child(folder, manifest, cache_root, ['x']);
    expect(damaged.result).toBe('2 main.cjs function 42');
    expect(damaged.loads).toEqual([
      { file: 'main.cjs', cache: 'rejected' },
      { file: 'helper-abc.cjs', cache: 'hit' },
    ]);
    expect((await readFile(cache_file)).equals(damage)).toBe(false);
    expect(load_in_child(folder, manifest, cache_root).loads[0]).toEqual({
      file: 'main.cjs',
      cache: 'hit',
    });
  });

  it('never offers one build the code cached for another (V8 checks only the length)', async () => {
    const { folder, manifest } = await make_bundle(temp);
    const cache_root = join(temp.path, 'cache');
    load_in_child(folder, manifest, cache_root);
    // the same length, another behaviour: a new build, so a new hash
    await writeFile(join(folder, 'helper-abc.cjs'), 'exports.twice = (n) => n * 3;');
    const rebuilt = load_in_child(folder, { ...manifest, hash: 'hash0002' }, cache_root, ['a']);
    expect(rebuilt.result).toBe('3 main.cjs function 42');
    expect(rebuilt.loads.map((load) => load.cache)).toEqual(['miss', 'miss']);
  });

  it('works without a cache, and when the cache folder cannot be made', async () => {
    const { folder, manifest } = await make_bundle(temp);
    expect(load_in_child(folder, manifest, null).result).toBe('0 main.cjs function 42');

    const blocked = join(temp.path, 'a-file');
    await writeFile(blocked, 'not a folder');
    const unwritable = load_in_child(folder, manifest, blocked);
    expect(unwritable.result).toBe('0 main.cjs function 42');
    expect(unwritable.loads.map((load) => load.cache)).toEqual(['miss', 'miss']);
    expect((await stat(blocked)).isFile()).toBe(true);
  });

  it('reads chunks as the manifest says: latin1 for an ASCII bundle, UTF-8 otherwise', async () => {
    const folder = join(temp.path, 'text');
    await mkdir(folder);
    // escaped, as `charset: 'ascii'` writes it: the same string at run time
    await writeFile(
      join(folder, 'main.cjs'),
      'exports.main = async () => "caf\\u00e9 \\u2014 ok";',
    );
    const ascii = { built: Date.now(), inputs: [], entry: 'main.cjs', hash: 'text0001' };
    const as_latin1 = { ...ascii, source_encoding: 'latin1' as const };
    expect(load_in_child(folder, as_latin1, null).result).toBe('caf\u00e9 \u2014 ok');
    // a chunk with the characters themselves needs UTF-8, the default of an older manifest
    await writeFile(join(folder, 'main.cjs'), 'exports.main = async () => "café — ok";');
    expect(load_in_child(folder, ascii, null).result).toBe('café — ok');
    expect(load_in_child(folder, { ...ascii, source_encoding: 'utf8' }, null).result).toBe(
      'café — ok',
    );
    await writeFile(join(folder, 'inputs.json'), JSON.stringify(as_latin1));
    expect(loader.read_manifest(folder)).toEqual(as_latin1);
    await writeFile(
      join(folder, 'inputs.json'),
      JSON.stringify({ ...ascii, source_encoding: 'utf16' }),
    );
    expect(loader.read_manifest(folder)).toBeNull();
  });

  it('finds its cache folder from the environment', () => {
    expect(loader.code_cache_root({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(
      join('/x', 'lich', 'code-cache'),
    );
    expect(loader.code_cache_root({ HOME: '/h' })).toBe(join('/h', '.cache', 'lich', 'code-cache'));
    expect(loader.code_cache_root({ LICH_CODE_CACHE_DIR: '/c', HOME: '/h' })).toBe('/c');
    expect(loader.code_cache_root({ LICH_NO_CODE_CACHE: '1', HOME: '/h' })).toBeNull();
  });

  it('reads only a manifest it understands, and tells a stale bundle', async () => {
    const { folder, manifest } = await make_bundle(temp);
    expect(loader.read_manifest(folder)).toEqual(manifest);
    expect(loader.read_manifest(join(temp.path, 'nowhere'))).toBeNull();
    await writeFile(join(folder, 'inputs.json'), JSON.stringify({ built: 1, inputs: [] }));
    expect(loader.read_manifest(folder)).toBeNull();

    const input = join(temp.path, '.tsbuildinfo');
    await writeFile(input, '{}');
    const inputs = ['../.tsbuildinfo', '../missing/.tsbuildinfo'];
    expect(loader.bundle_fresh(folder, { ...manifest, built: Date.now() + 1000, inputs })).toBe(
      true,
    );
    expect(loader.bundle_fresh(folder, { ...manifest, built: 0, inputs })).toBe(false);

    // fresh_manifest: both at once, the rule every caller asks
    const written = { ...manifest, built: Date.now() + 1000, inputs };
    await writeFile(join(folder, 'inputs.json'), JSON.stringify(written));
    expect(loader.fresh_manifest(folder)).toEqual(written);
    await writeFile(join(folder, 'inputs.json'), JSON.stringify({ ...written, built: 0 }));
    expect(loader.fresh_manifest(folder)).toBeNull();
    expect(loader.fresh_manifest(join(temp.path, 'nowhere'))).toBeNull();
  });
});

describe('lich with its code cache', () => {
  let sandbox: Sandbox;
  let server: FakeServer;

  beforeEach(async () => {
    sandbox = await make_sandbox({ 'notes.txt': 'hello\n' });
    server = await start_openai_server();
  });

  afterEach(async () => {
    await server.close();
    await sandbox.cleanup();
  });

  async function cache_files(): Promise<string[]> {
    const root = join(sandbox.home, '.cache', 'lich', 'code-cache');
    const keys = await readdir(root).catch(() => [] as string[]);
    const files: string[] = [];
    for (const key of keys) {
      for (const name of await readdir(join(root, key))) files.push(join(root, key, name));
    }
    return files;
  }

  async function one_shot(): Promise<string> {
    server.enqueue(
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { text: 'It says hello.' },
    );
    const result = await run_lich(['--no-session', 'read notes.txt'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  }

  it('writes the cache on the first run and still answers when every cache file is damaged', async () => {
    expect(await one_shot()).toBe('It says hello.\n');
    const files = await cache_files();
    expect(files.some((file) => file.endsWith('main.cjs.cache'))).toBe(true);
    expect(files.every((file) => file.endsWith('.cache'))).toBe(true);

    for (const file of files) await writeFile(file, 'damaged');
    expect(await one_shot()).toBe('It says hello.\n');
    // rejected caches were written again
    for (const file of files) expect((await readFile(file, 'utf8')) === 'damaged').toBe(false);
  });
});

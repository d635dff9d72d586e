/**
 * What `npm i @lich/core` gets: `pnpm pack` holds only dist, README, package.json (and LICENSE),
 * depends on zod at most, and the packed code runs the README's example on its own.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PACKAGE_DIR = resolve(import.meta.dirname, '..');
const ROOT = resolve(PACKAGE_DIR, '../..');

/** pnpm as the test runner was started with it (`npx pnpm test` in CI), else from PATH. */
function pnpm(args: string[], cwd: string) {
  const exec_path = process.env.npm_execpath;
  return exec_path?.includes('pnpm') && exec_path.endsWith('js')
    ? run(process.execPath, [exec_path, ...args], { cwd })
    : run('pnpm', args, { cwd });
}

let temp_dir = '';
let entries: string[] = [];

beforeAll(async () => {
  await pnpm(['exec', 'tsc', '-b', 'packages/core'], ROOT);
  temp_dir = await mkdtemp(join(tmpdir(), 'lich-core-pack-'));
  await pnpm(['pack', '--pack-destination', temp_dir], PACKAGE_DIR);
  const tarball = (await readdir(temp_dir)).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball into ${temp_dir}`);
  const listing = await run('tar', ['-tzf', join(temp_dir, tarball)]);
  entries = listing.stdout.split('\n').filter((line) => line !== '');
  await run('tar', ['-xzf', join(temp_dir, tarball), '-C', temp_dir]);
}, 120_000);

afterAll(async () => {
  if (temp_dir !== '') await rm(temp_dir, { recursive: true, force: true });
});

describe('the packed @lich/core', () => {
  it('holds only dist, README, package.json and LICENSE', () => {
    const allowed = /^package\/(dist\/[^/].*|README\.md|package\.json|LICENSE)$/;
    expect(entries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(entries).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/loop.js',
      ]),
    );
    expect(entries.filter((entry) => /\.test\.|tsbuildinfo/.test(entry))).toEqual([]);
  });

  it('depends on zod at most, and its entry points are in the tarball', async () => {
    const manifest = JSON.parse(await readFile(join(temp_dir, 'package/package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      exports: { '.': { types: string; import: string } };
    };
    const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    expect(dependencies.filter((name) => name !== 'zod')).toEqual([]);
    for (const target of [manifest.exports['.'].types, manifest.exports['.'].import]) {
      expect(entries).toContain(`package/${target.replace(/^\.\//, '')}`);
    }
  });

  it("runs the README's example from the packed files alone", async () => {
    const readme = await readFile(join(PACKAGE_DIR, 'README.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from '@lich/core'");
    const script = join(temp_dir, 'package', 'readme_example.mjs');
    await writeFile(script, (example ?? '').replace("'@lich/core'", "'./dist/index.js'"));
    const { stdout, stderr } = await run(process.execPath, [script]);
    expect(stdout.trim()).toBe('20 + 22 = 42.');
    expect(stderr).toContain('tool: add {"a":20,"b":22}');
  });

  it('runs examples/loop.mjs against the built dist and exits 0', async () => {
    const { stdout } = await run(process.execPath, [join(PACKAGE_DIR, 'examples/loop.mjs')]);
    expect(stdout.trim()).toBe('20 + 22 = 42.');
  });
});

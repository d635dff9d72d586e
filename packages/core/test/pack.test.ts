/**
 * What `npm i @lich/core` gets: the tarball holds only dist, README, package.json (and LICENSE),
 * depends on zod at most, and the packed code runs the README's example on its own. Packs the dist
 * the global setup built; builds nothing.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, pack_package } from '../../../tooling/vitest/pack.js';

const run = promisify(execFile);
const PACKAGE_DIR = resolve(import.meta.dirname, '..');

let packed: PackedPackage;

beforeAll(async () => {
  packed = await pack_package(PACKAGE_DIR);
}, 60_000);

afterAll(async () => {
  await packed?.cleanup();
});

describe('the packed @lich/core', () => {
  it('holds only dist, README, package.json and LICENSE', () => {
    const allowed = /^package\/(dist\/[^/].*|README\.md|package\.json|LICENSE)$/;
    expect(packed.entries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(packed.entries).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/loop.js',
        'package/dist/tool.d.ts',
      ]),
    );
    expect(packed.entries.filter((entry) => /\.test\.|tsbuildinfo/.test(entry))).toEqual([]);
  });

  it('depends on zod at most, and its entry points are in the tarball', () => {
    expect(packed.runtime_dependencies.filter((name) => name !== 'zod')).toEqual([]);
    const exports = packed.manifest.exports as { '.': { types: string; import: string } };
    for (const target of [exports['.'].types, exports['.'].import]) {
      expect(packed.entries).toContain(`package/${target.replace(/^\.\//, '')}`);
    }
  });

  it("runs the README's example from the packed files alone", async () => {
    const readme = await readFile(join(PACKAGE_DIR, 'README.md'), 'utf8');
    const example = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from '@lich/core'");
    const script = join(packed.dir, 'readme_example.mjs');
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

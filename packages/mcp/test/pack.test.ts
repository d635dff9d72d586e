/**
 * What `npm i @lich/mcp` pulls in: the tool contract comes from `@lich/core`, so the MCP client
 * depends on core, the MCP SDK and zod, and on nothing of `@lich/tools` (ripgrep, tinyglobby,
 * diff). Packs the dist the global setup built; builds nothing.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, pack_package } from '../../../tooling/vitest/pack.js';

const PACKAGE_DIR = resolve(import.meta.dirname, '..');

let packed: PackedPackage;

beforeAll(async () => {
  packed = await pack_package(PACKAGE_DIR);
}, 60_000);

afterAll(async () => {
  await packed?.cleanup();
});

describe('the packed @lich/mcp', () => {
  it('depends at run time on @lich/core, the MCP client SDK and zod only', () => {
    expect(packed.runtime_dependencies).toEqual([
      '@lich/core',
      '@modelcontextprotocol/client',
      'zod',
    ]);
    expect(packed.manifest.optionalDependencies ?? {}).toEqual({});
  });

  it('names no @lich package but core in its compiled code and types', async () => {
    const code = await Promise.all(
      packed.entries
        .filter((entry) => entry.endsWith('.js') || entry.endsWith('.d.ts'))
        .map((entry) => readFile(resolve(packed.dir, '..', entry), 'utf8')),
    );
    const imported = new Set(
      code.flatMap((text) =>
        [...text.matchAll(/(?:from|import\()\s*'(@lich\/[^']+)'/g)].map((match) => match[1]),
      ),
    );
    expect([...imported].sort()).toEqual(['@lich/core']);
  });
});

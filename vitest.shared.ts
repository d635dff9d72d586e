import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultServerConditions } from 'vite';
import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * The shared settings of every package's vitest project. Workspace packages resolve through the
 * `@lich/source` export condition, so tests run against `src/` with no build in between.
 */
export function lich_project(dir: string, overrides: UserWorkspaceConfig['test'] = {}) {
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string };
  const conditions = ['@lich/source', ...defaultServerConditions];
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@lich/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
      testTimeout: 20_000,
      hookTimeout: 20_000,
      ...overrides,
    },
  });
}

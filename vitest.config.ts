import { defineConfig } from 'vitest/config';

/**
 * One root config: each workspace package is a project. Tests import workspace packages through the
 * `@lich/source` export condition, so they run against `src/` without a build step; the tests that
 * run built code (a child process, the `lich` bin, a packed tarball) use what the global setup
 * built once, before any test started. Under CI a JSON report is written as well, from which
 * `.ci/run` prints its closing `N passed, N failed` line.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tooling/testkit'],
    globalSetup: ['tooling/vitest/global_setup.ts'],
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: 'test-results.json' }]]
      : ['default'],
  },
});

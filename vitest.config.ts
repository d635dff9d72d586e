import { defineConfig } from 'vitest/config';

/**
 * One root config: each workspace package is a project. Tests import workspace packages through the
 * `@lich/source` export condition, so they run against `src/` without a build step. Under CI a JSON
 * report is written as well, from which `.ci/run` prints its closing `N passed, N failed` line.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tooling/testkit'],
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: 'test-results.json' }]]
      : ['default'],
  },
});

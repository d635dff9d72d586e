import { defineConfig } from 'vitest/config';

/**
 * One root config: each workspace package is a project. Tests import workspace packages through the
 * `@lich/source` export condition, so they run against `src/` without a build step.
 */
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'tooling/testkit'],
  },
});

import { build_workspace } from './build.js';

/** Vitest global setup (root `vitest.config.ts`): the suite's one build, before any test runs. */
export default function setup(): void {
  build_workspace();
}

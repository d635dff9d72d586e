/**
 * The built `lich` for end-to-end tests. The workspace is built once, by the root vitest global
 * setup (`tooling/vitest/global_setup.ts`), before any test runs; tests only ask for the path.
 */
import { existsSync } from 'node:fs';
import { build_workspace, LICH_BIN } from '../../../tooling/vitest/build.js';

/**
 * The path of the built `lich` executable (`apps/cli/dist/bin.cjs`). Never builds: throws when it
 * is missing, which means the suite was started without the root config's global setup.
 */
export function built_lich_bin(): string {
  if (!existsSync(LICH_BIN)) {
    throw new Error(
      `${LICH_BIN} is missing: run the tests from the root (vitest run), which builds`,
    );
  }
  return LICH_BIN;
}

/** A vitest global setup that builds the workspace (kept for configs that name this file). */
export default function setup(): void {
  build_workspace();
}

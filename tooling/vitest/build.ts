/**
 * The one build the test suite makes: `tsc -b` of the whole workspace with the workspace's own
 * TypeScript, then the CLI bundle when it is missing or stale. It runs once, in vitest's global
 * setup, before any test file starts; no test builds anything, so no `.tsbuildinfo` changes
 * under a running test, and no test needs `pnpm` on PATH.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository root, found from this file's place (`tooling/vitest/`). */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** The built `lich` executable (the CLI package's `bin`). */
export const LICH_BIN = join(ROOT, 'apps', 'cli', 'dist', 'bin.cjs');

const CLI_DIR = join(ROOT, 'apps', 'cli');

/**
 * Builds every workspace package (`tsc -b`, a no-op of about a second when nothing changed), then
 * remakes the CLI's bundles when one is missing or stale (`bundle.mjs --if-stale`, by the rule
 * `bin.cjs` applies). Throws when the build fails.
 */
export function build_workspace(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b'], { cwd: ROOT, stdio: 'inherit' });
  execFileSync(process.execPath, [join(CLI_DIR, 'scripts', 'bundle.mjs'), '--if-stale'], {
    cwd: CLI_DIR,
    stdio: 'inherit',
  });
}

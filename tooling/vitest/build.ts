/**
 * The one build the test suite makes: `tsc -b` of the whole workspace with the workspace's own
 * TypeScript, then the CLI bundle when it is missing or stale. It runs once, in vitest's global
 * setup, before any test file starts; no test builds anything, so no `.tsbuildinfo` changes
 * under a running test, and no test needs `pnpm` on PATH.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/** The workspace root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/** The built `lich` executable (the CLI package's `bin`). */
export const LICH_BIN = join(ROOT, 'apps', 'cli', 'dist', 'bin.cjs');

const CLI_DIR = join(ROOT, 'apps', 'cli');
/** The CLI's bundle, and the TUI's that `lich tui` loads; `scripts/bundle.mjs` makes both. */
const BUNDLE_DIRS = [join(CLI_DIR, 'dist', 'bundle'), join(CLI_DIR, 'dist', 'tui')];

interface BundleLoader {
  read_manifest(folder: string): unknown;
  bundle_fresh(folder: string, manifest: unknown): boolean;
}

/**
 * Whether the CLI's bundles (its own and the TUI's) are there and no package they were made from
 * was rebuilt after them.
 */
export function cli_bundle_fresh(): boolean {
  try {
    // the rule bin.cjs applies, from the compiled loader itself
    const loader = createRequire(import.meta.url)(
      join(CLI_DIR, 'dist', 'bundle_loader.cjs'),
    ) as BundleLoader;
    return BUNDLE_DIRS.every((folder) => {
      const manifest = loader.read_manifest(folder);
      return manifest !== null && loader.bundle_fresh(folder, manifest);
    });
  } catch {
    return false;
  }
}

/**
 * Builds every workspace package (`tsc -b`, a no-op of about a second when nothing changed), then
 * remakes the CLI bundle when it is stale. Throws when the build fails.
 */
export function build_workspace(): void {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b'], { cwd: ROOT, stdio: 'inherit' });
  if (!cli_bundle_fresh()) {
    execFileSync(process.execPath, [join(CLI_DIR, 'scripts', 'bundle.mjs')], {
      cwd: CLI_DIR,
      stdio: 'inherit',
    });
  }
}

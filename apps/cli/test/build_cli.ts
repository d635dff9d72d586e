import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = dirname(dirname(CLI_DIR));
const BIN = join(CLI_DIR, 'dist', 'bin.cjs');
const BUNDLE = join(CLI_DIR, 'dist', 'bundle', 'main.cjs');

function newest(folder: string): number {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      latest = Math.max(latest, statSync(path).mtimeMs);
    }
  }
  return latest;
}

/** The rule `bin.cjs` applies: no package the bundle was made from was rebuilt after it. */
function bundle_fresh(): boolean {
  const folder = dirname(BUNDLE);
  try {
    const manifest = JSON.parse(readFileSync(join(folder, 'inputs.json'), 'utf8')) as {
      built: number;
      inputs: string[];
    };
    return manifest.inputs.every(
      (input) =>
        !existsSync(resolve(folder, input)) ||
        statSync(resolve(folder, input)).mtimeMs <= manifest.built,
    );
  } catch {
    return false;
  }
}

/**
 * Builds the CLI (tsc for it and what it references, then the bundle) when dist/bin.js or the
 * bundle is missing or older than the sources of any workspace package.
 */
export default function setup(): void {
  const sources = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name, 'src')),
  );
  const built = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 0);
  const oldest = Math.min(built(BIN), built(BUNDLE));
  const stale =
    sources.some((folder) => existsSync(folder) && newest(folder) > oldest) || !bundle_fresh();
  if (!stale) return;
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'apps/cli'], { cwd: ROOT, stdio: 'inherit' });
  execFileSync(process.execPath, [join(CLI_DIR, 'scripts', 'bundle.mjs')], { stdio: 'inherit' });
}

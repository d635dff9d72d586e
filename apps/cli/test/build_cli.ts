import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = dirname(dirname(CLI_DIR));
const BIN = join(CLI_DIR, 'dist', 'bin.js');

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

/** Builds the CLI (and what it references) when dist/bin.js is missing or stale. */
export default function setup(): void {
  const sources = [join(CLI_DIR, 'src'), join(ROOT, 'packages', 'agent', 'src')];
  const stale =
    !existsSync(BIN) || sources.some((folder) => newest(folder) > statSync(BIN).mtimeMs);
  if (!stale) return;
  execFileSync('pnpm', ['exec', 'tsc', '-b', 'apps/cli'], { cwd: ROOT, stdio: 'inherit' });
}

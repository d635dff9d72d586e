import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let known: string | undefined;

/**
 * The version of @lich/cli, from its package.json: read next to this file's folder (`dist/` and
 * `dist/bundle/` sit one and two folders below it), else found through the package's own exports.
 * Reading the file is cheaper than resolving a module. Throws only if the package is broken.
 */
export function version(): string {
  if (known !== undefined) return known;
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === '@lich/cli' && typeof manifest.version === 'string') {
        known = manifest.version;
        return known;
      }
    } catch {
      // not there: try the next folder up, then the resolver
    }
  }
  const manifest = createRequire(import.meta.url)('@lich/cli/package.json') as { version: string };
  known = manifest.version;
  return known;
}

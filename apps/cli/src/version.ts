import { createRequire } from 'node:module';

/**
 * The version of @lich/cli, from its package.json (found through the package's own exports, so
 * it is right from `dist/` and from the bundle alike). Throws only if the package is broken.
 */
export function version(): string {
  const manifest = createRequire(import.meta.url)('@lich/cli/package.json') as { version: string };
  return manifest.version;
}

import { readFileSync } from 'node:fs';

/** The version of @lich/cli, read from its package.json. Throws only if the package is broken. */
export function version(): string {
  const url = new URL('../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

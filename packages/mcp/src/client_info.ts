/**
 * How Lich introduces itself to MCP servers (`clientInfo` of initialize).
 */
import { readFileSync } from 'node:fs';

let cached: { name: string; version: string } | undefined;

/** `{ name: 'lich', version }`, the version read once from this package's package.json. */
export function client_info(): { name: string; version: string } {
  if (cached !== undefined) return cached;
  let version = '0.0.0';
  try {
    // the same relative path from src/ (tests) and dist/ (built)
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    const parsed = JSON.parse(text) as { version?: unknown };
    if (typeof parsed.version === 'string') version = parsed.version;
  } catch {
    // an unusual layout (a bundle): the version is cosmetic here
  }
  cached = { name: 'lich', version };
  return cached;
}

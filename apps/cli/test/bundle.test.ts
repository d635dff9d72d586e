import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BUNDLE_DIR = fileURLToPath(new URL('../dist/bundle/', import.meta.url));

const PACKAGE_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.@-]+)*$/;

/** The bare specifiers the bundle still imports (its externals), other than Node built-ins. */
function externals(): string[] {
  const found = new Set<string>();
  for (const name of readdirSync(BUNDLE_DIR).filter((file) => file.endsWith('.mjs'))) {
    const text = readFileSync(join(BUNDLE_DIR, name), 'utf8');
    for (const match of text.matchAll(/(?:from\s*|import\s*\(\s*)["']([^"'./][^"']*)["']/g)) {
      const specifier = match[1] as string;
      // strings that merely follow the word "from" in some message are not package names
      if (!PACKAGE_NAME.test(specifier) || specifier.startsWith('node:')) continue;
      found.add(specifier);
    }
  }
  return [...found].sort();
}

describe('the bundle', () => {
  it('imports nothing it cannot resolve from where it is installed', () => {
    const specifiers = externals();
    expect(specifiers).toContain('@lich/mcp');
    expect(specifiers).toContain('@vscode/ripgrep');
    const script = `for (const s of ${JSON.stringify(specifiers)}) { try { import.meta.resolve(s); } catch (e) { console.log(s); } }`;
    const unresolved = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: BUNDLE_DIR,
      encoding: 'utf8',
    });
    expect(unresolved.trim()).toBe('');
  });

  it('contains no package the one-shot path must not load', () => {
    const forbidden = /^(ink|react|ws|grammy|discord\.js|tmi\.js|@modelcontextprotocol\/)/;
    expect(externals().filter((specifier) => forbidden.test(specifier))).toEqual([]);
  });
});

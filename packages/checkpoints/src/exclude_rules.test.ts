import { describe, expect, it } from 'vitest';
import { compile_excludes } from './exclude_rules.js';

describe('compile_excludes', () => {
  it('always leaves out .git and .lich, at any depth', () => {
    const rules = compile_excludes([], { default_excludes: false });
    expect(rules.is_excluded('.git', '.git', true)).toBe(true);
    expect(rules.is_excluded('sub/.git', '.git', false)).toBe(true);
    expect(rules.is_excluded('.lich', '.lich', true)).toBe(true);
    expect(rules.is_excluded('node_modules', 'node_modules', true)).toBe(false);
  });

  it('leaves out dependency folders by default, and keeps .env', () => {
    const rules = compile_excludes();
    expect(rules.is_excluded('node_modules', 'node_modules', true)).toBe(true);
    expect(rules.is_excluded('pkg/a/node_modules', 'node_modules', true)).toBe(true);
    expect(rules.is_excluded('.venv', '.venv', true)).toBe(true);
    expect(rules.is_excluded('app/.yarn/cache', 'cache', true)).toBe(true);
    expect(rules.is_excluded('.yarn/cache', 'cache', true)).toBe(true);
    expect(rules.is_excluded('.yarn/releases', 'releases', true)).toBe(false);
    // a file named like a dependency folder is kept: the defaults match folders only
    expect(rules.is_excluded('node_modules', 'node_modules', false)).toBe(false);
    expect(rules.is_excluded('.env', '.env', false)).toBe(false);
    expect(rules.cache_tags).toBe(true);
    expect(compile_excludes([], { default_excludes: false }).cache_tags).toBe(false);
  });

  it('matches names at any depth, paths from the work folder, and globs', () => {
    const rules = compile_excludes(
      ['*.log', 'build/', '/out', 'data/raw', 'docs/**/*.pdf', '# note', ''],
      {
        default_excludes: false,
      },
    );
    expect(rules.is_excluded('a/b/x.log', 'x.log', false)).toBe(true);
    expect(rules.is_excluded('a/build', 'build', true)).toBe(true);
    expect(rules.is_excluded('a/build', 'build', false)).toBe(false);
    expect(rules.is_excluded('out', 'out', true)).toBe(true);
    expect(rules.is_excluded('a/out', 'out', true)).toBe(false);
    expect(rules.is_excluded('data/raw', 'raw', false)).toBe(true);
    expect(rules.is_excluded('docs/a/b/c.pdf', 'c.pdf', false)).toBe(true);
    expect(rules.is_excluded('docs/c.pdf', 'c.pdf', false)).toBe(true);
    expect(rules.is_excluded('docs/c.md', 'c.md', false)).toBe(false);
    expect(rules.is_excluded('#note', '#note', false)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { command_parts } from './command_parts.js';
import { parse_rule, rule_matches, rule_path } from './permission_rules.js';

const WORK = '/work/project';

function allows(rule: string, tool: string, args: unknown): boolean {
  return rule_matches(parse_rule(rule), 'allow', tool, args, WORK);
}

function denies(rule: string, tool: string, args: unknown): boolean {
  return rule_matches(parse_rule(rule), 'deny', tool, args, WORK);
}

describe('permission rules', () => {
  it('match commands with * as any text, every simple command for allow', () => {
    expect(allows('terminal(git status*)', 'terminal', { command: 'git status' })).toBe(true);
    expect(allows('terminal(git status*)', 'terminal', { command: 'git  status --short' })).toBe(
      true,
    );
    expect(allows('terminal(npm test)', 'terminal', { command: 'npm test' })).toBe(true);
    expect(allows('terminal(npm test)', 'terminal', { command: 'npm test -- --watch' })).toBe(
      false,
    );
    expect(allows('terminal(git status*)', 'terminal', { command: 'git status; rm -rf ~' })).toBe(
      false,
    );
    expect(allows('terminal(git *)', 'terminal', { command: 'git add . && git status' })).toBe(
      true,
    );
    expect(allows('terminal(git *)', 'terminal', { command: 'git log > /tmp/x' })).toBe(false);
    expect(allows('terminal(echo *)', 'terminal', { command: 'echo $(cat ~/.ssh/id_rsa)' })).toBe(
      false,
    );
    expect(allows('terminal(echo *)', 'terminal', { command: "echo 'a; b'" })).toBe(true);
  });

  it('deny a line when any simple command matches', () => {
    expect(denies('terminal(rm *)', 'terminal', { command: 'ls && rm -rf build' })).toBe(true);
    expect(denies('terminal(git push*)', 'terminal', { command: 'git push origin main' })).toBe(
      true,
    );
    expect(denies('terminal(git push*)', 'terminal', { command: 'git status' })).toBe(false);
  });

  it('match paths relative to the work dir with * inside a folder and ** across', () => {
    expect(allows('write_file(docs/**)', 'write_file', { path: 'docs/a.md' })).toBe(true);
    expect(allows('write_file(docs/**)', 'write_file', { path: './docs/x/y.md' })).toBe(true);
    expect(allows('write_file(docs/**)', 'write_file', { path: `${WORK}/docs/b.md` })).toBe(true);
    expect(allows('write_file(docs/**)', 'write_file', { path: 'src/docs/a.md' })).toBe(false);
    expect(allows('write_file(docs/**)', 'write_file', { path: '../docs/a.md' })).toBe(false);
    expect(allows('write_file(docs/*.md)', 'write_file', { path: 'docs/a.md' })).toBe(true);
    expect(allows('write_file(docs/*.md)', 'write_file', { path: 'docs/x/a.md' })).toBe(false);
    expect(allows('edit_file(**/*.ts)', 'edit_file', { path: 'src/a/b.ts' })).toBe(true);
    expect(allows('edit_file(**/*.ts)', 'edit_file', { path: 'b.ts' })).toBe(true);
  });

  it('match bare names and name globs; a pattern on another tool never matches', () => {
    expect(allows('read_file', 'read_file', { path: 'x' })).toBe(true);
    expect(allows('mcp_github_*', 'mcp_github_search', {})).toBe(true);
    expect(allows('mcp_github_*', 'mcp_gitlab_search', {})).toBe(false);
    expect(allows('git_commit(*)', 'git_commit', { message: 'x' })).toBe(false);
    expect(allows('terminal(a\\*b)', 'terminal', { command: 'a*b' })).toBe(true);
    expect(allows('terminal(a\\*b)', 'terminal', { command: 'axxb' })).toBe(false);
  });

  it('refuse a rule that is not one', () => {
    expect(() => parse_rule('terminal(')).toThrow(/not a permission rule/);
    expect(() => parse_rule('')).toThrow(/not a permission rule/);
    expect(() => parse_rule('two words')).toThrow(/not a permission rule/);
  });

  it('splits shell lines quote-aware', () => {
    expect(command_parts('a && b || c; d | e & f')).toEqual({
      parts: ['a', 'b', 'c', 'd', 'e', 'f'],
      opaque: false,
    });
    expect(command_parts('echo "x; y"').parts).toEqual(['echo "x; y"']);
    expect(command_parts('echo `id`').opaque).toBe(true);
    expect(command_parts('cat <<EOF').opaque).toBe(true);
    expect(command_parts("echo 'open").opaque).toBe(true);
  });
});

describe('rule_path', () => {
  it('gives the path relative to the work dir with /, plain or not; null outside', () => {
    for (const path of ['src/a.ts', './src//a.ts', 'src/x/../a.ts', '/w/src/a.ts']) {
      expect(rule_path(path, '/w'), path).toBe('src/a.ts');
    }
    expect(rule_path('.', '/w/')).toBe('.');
    expect(rule_path('../x', '/w')).toBeNull();
    expect(rule_path('..', '/w')).toBeNull();
    expect(rule_path('./..env', '/w')).toBe('..env');
    expect(rule_path('/elsewhere/x', '/w')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { PermissionPolicy, remembered_answers } from './permission_policy.js';
import { parse_rule } from './permission_rules.js';

const WORK = '/work/project';

describe('PermissionPolicy', () => {
  it('decides by mode: reads run, edits ask in default, run in auto_edit; yolo runs all', () => {
    const policy = new PermissionPolicy(undefined, WORK);
    const read = { path: 'a.txt' };
    const write = { path: 'a.txt', content: 'x' };
    const command = { command: 'make' };
    expect(policy.decide('read_file', read, 'default').decision).toBe('allow');
    expect(policy.decide('write_file', write, 'default').decision).toBe('ask');
    expect(policy.decide('terminal', command, 'default').decision).toBe('ask');
    expect(policy.decide('write_file', write, 'auto_edit').decision).toBe('allow');
    expect(policy.decide('terminal', command, 'auto_edit').decision).toBe('ask');
    expect(policy.decide('mcp_x_y', {}, 'auto_edit').decision).toBe('ask');
    expect(policy.decide('terminal', command, 'yolo')).toEqual({
      decision: 'allow',
      source: 'mode',
    });
  });

  it('lets deny beat allow, in yolo too, and ask beat allow', () => {
    const policy = new PermissionPolicy(
      {
        allow: ['terminal(git *)', 'write_file'],
        ask: ['terminal(git push*)'],
        deny: ['terminal(git reset --hard*)', 'write_file(.env)'],
      },
      WORK,
    );
    const git = (command: string) => ({ command });
    expect(policy.decide('terminal', git('git status'), 'default')).toMatchObject({
      decision: 'allow',
      source: 'rule',
      rule: 'terminal(git *)',
    });
    expect(policy.decide('terminal', git('git reset --hard HEAD'), 'yolo')).toMatchObject({
      decision: 'deny',
      rule: 'terminal(git reset --hard*)',
    });
    expect(policy.decide('write_file', { path: '.env' }, 'default').decision).toBe('deny');
    expect(policy.decide('write_file', { path: 'a.md' }, 'default').decision).toBe('allow');
    expect(policy.decide('terminal', git('git push'), 'default')).toMatchObject({
      decision: 'ask',
      rule: 'terminal(git push*)',
    });
    expect(policy.decide('terminal', git('git push'), 'yolo').decision).toBe('allow');
  });

  it('applies remembered answers after deny rules', () => {
    const policy = new PermissionPolicy({ deny: ['terminal(rm *)'] }, WORK);
    const remembered = remembered_answers();
    remembered.allow.push(parse_rule(policy.rule_for('terminal', { command: 'make  test' })));
    remembered.deny.push(parse_rule('terminal(curl*)'));
    expect(
      policy.decide('terminal', { command: 'make test' }, 'default', remembered),
    ).toMatchObject({ decision: 'allow', source: 'session' });
    expect(policy.decide('terminal', { command: 'make' }, 'default', remembered).decision).toBe(
      'ask',
    );
    expect(policy.decide('terminal', { command: 'curl x' }, 'yolo', remembered).decision).toBe(
      'deny',
    );
    remembered.allow.push(parse_rule('terminal(rm *)'));
    expect(policy.decide('terminal', { command: 'rm x' }, 'default', remembered).source).toBe(
      'rule',
    );
  });

  it('titles calls and writes the rule an always-answer remembers', () => {
    const policy = new PermissionPolicy(undefined, WORK);
    expect(policy.title('terminal', { command: 'git   push' })).toBe('terminal: git push');
    expect(policy.title('write_file', { path: `${WORK}/docs/a.md` })).toBe('write_file: docs/a.md');
    expect(policy.title('mcp_x_y', { q: 1 })).toBe('mcp_x_y {"q":1}');
    expect(policy.rule_for('terminal', { command: 'ls *.md' })).toBe('terminal(ls \\*.md)');
    expect(policy.rule_for('git_commit', { message: 'x' })).toBe('git_commit');
  });

  it('asks before web_fetch, and web_fetch(domain:…) rules allow a domain', () => {
    const policy = new PermissionPolicy(
      { allow: ['web_fetch(domain:docs.python.org)', 'web_fetch(domain:*.nodejs.org)'] },
      WORK,
    );
    const fetch = (url: string) => policy.decide('web_fetch', { url }, 'auto_edit').decision;
    expect(
      new PermissionPolicy(undefined, WORK).decide('web_fetch', { url: 'https://a.b/' }, 'default')
        .decision,
    ).toBe('ask');
    expect(fetch('https://docs.python.org/3/library/')).toBe('allow');
    expect(fetch('https://DOCS.python.org./3/')).toBe('allow');
    expect(fetch('https://docs.python.org.evil.example/')).toBe('ask');
    expect(fetch('https://evil.example/?docs.python.org')).toBe('ask');
    expect(fetch('https://api.nodejs.org/x')).toBe('allow');
    expect(fetch('https://nodejs.org/x')).toBe('ask');
    expect(fetch('not a url')).toBe('ask');
    expect(policy.rule_for('web_fetch', { url: 'https://pypi.org/simple/x' })).toBe(
      'web_fetch(domain:pypi.org)',
    );
    expect(policy.title('web_fetch', { url: 'https://pypi.org/a' })).toBe(
      'web_fetch: domain:pypi.org',
    );
  });

  it('plan mode: reads run, the plan is asked, everything else is refused whatever allows it', () => {
    const policy = new PermissionPolicy(
      {
        allow: ['write_file', 'terminal(ls*)', 'web_fetch(domain:a.example)'],
        deny: ['read_file(.env)'],
      },
      WORK,
    );
    const decide = (tool: string, args: unknown) => policy.decide(tool, args, 'plan');
    expect(decide('read_file', { path: 'a.ts' })).toEqual({ decision: 'allow', source: 'mode' });
    expect(decide('read_file', { path: '.env' }).decision).toBe('deny');
    expect(decide('todo_write', { todos: [] }).decision).toBe('allow');
    expect(decide('exit_plan_mode', { plan: 'x' })).toEqual({ decision: 'ask', source: 'mode' });
    expect(decide('write_file', { path: 'a.ts' })).toEqual({ decision: 'deny', source: 'mode' });
    expect(decide('terminal', { command: 'ls' })).toEqual({ decision: 'deny', source: 'mode' });
    expect(decide('mcp_x_y', {}).decision).toBe('deny');
    expect(decide('web_fetch', { url: 'https://a.example/' }).decision).toBe('allow');
    expect(decide('web_fetch', { url: 'https://b.example/' }).decision).toBe('ask');
    // outside plan mode there is nothing to approve
    expect(policy.decide('exit_plan_mode', { plan: 'x' }, 'default').decision).toBe('allow');
  });

  it('refuses a bad rule when built', () => {
    expect(() => new PermissionPolicy({ allow: ['terminal(oops'] }, WORK)).toThrow(
      /not a permission rule/,
    );
  });
});

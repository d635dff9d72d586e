import { describe, expect, it } from 'vitest';
import { commit_pathspecs, runs_git_commit } from './gatekeeper.js';

describe('runs_git_commit', () => {
  it.each([
    'git commit -m "x"',
    'git commit',
    'git add -A && git commit -am wip',
    'git -C sub commit -m x',
    'git -c user.name=a --no-pager commit -m x',
    'sudo git commit -m x',
    'GIT_AUTHOR_NAME=x git commit -m y',
    '/usr/bin/git commit -m x',
    'echo $(git commit -m x)',
    'bash -c "git commit -m x"',
    'eval "git commit -m x"',
    'cd app; git commit -m x',
  ])('sees a commit in: %s', (command) => {
    expect(runs_git_commit(command)).toBe(true);
  });

  it.each([
    'git status',
    'git log --grep commit',
    'git show HEAD',
    'echo "git commit -m x"',
    "grep -r 'git commit' .",
    'git commit-tree HEAD^{tree}',
    'npm test',
  ])('sees none in: %s', (command) => {
    expect(runs_git_commit(command)).toBe(false);
  });
});

describe('commit_pathspecs', () => {
  it("leaves out Lich's state and a session folder inside the work dir, only there", () => {
    expect(commit_pathspecs('/w', undefined)).toEqual(['.', ':(exclude).lich']);
    expect(commit_pathspecs('/w', 'logs/sessions')).toEqual([
      '.',
      ':(exclude).lich',
      ':(exclude)logs/sessions',
    ]);
    // a folder whose name only starts with dots is in the work dir
    expect(commit_pathspecs('/w', '..sessions')).toContain(':(exclude)..sessions');
    expect(commit_pathspecs('/w', '../sessions')).toEqual(['.', ':(exclude).lich']);
    expect(commit_pathspecs('/w', '/elsewhere/sessions')).toEqual(['.', ':(exclude).lich']);
  });
});

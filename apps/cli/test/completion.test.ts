import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;

beforeEach(async () => {
  sandbox = await make_sandbox();
});

afterEach(async () => {
  await sandbox.cleanup();
});

const run = (args: string[]) => run_lich(args, { cwd: sandbox.work_dir, env: sandbox.env });

/** What bash completes for the words of a command line (the last one being typed). */
function bash_complete(script: string, words: string[]): string[] {
  const program = `${script}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_lich; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== '');
}

describe('lich completion', () => {
  it('bash: commands, subcommands and options complete', async () => {
    const result = await run(['completion', 'bash']);
    expect(result.code).toBe(0);
    expect(bash_complete(result.stdout, ['lich', 'ses'])).toEqual(['sessions']);
    expect(bash_complete(result.stdout, ['lich', 'sessions', 're'])).toEqual(['resume', 'repair']);
    expect(bash_complete(result.stdout, ['lich', '--output-f'])).toEqual(['--output-format']);
    expect(bash_complete(result.stdout, ['lich', '-C', 'x', 'completion', ''])).toEqual([
      'bash',
      'zsh',
      'fish',
    ]);
  });

  it('zsh and fish scripts name the commands; an unknown shell is a usage error', async () => {
    const zsh = await run(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef lich/);
    expect(zsh.stdout).toMatch(/compadd -- run chat .*sessions/);
    const fish = await run(['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c lich -n '__fish_seen_subcommand_from sessions'");
    expect(fish.stdout).toContain('complete -c lich -l output-format');
    const bad = await run(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no completion for 'tcsh'/);
  });
});

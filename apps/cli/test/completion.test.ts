/**
 * `lich completion`: the scripts ask `lich __complete` at each Tab, so what Tab offers is checked
 * here through a real bash with a `lich` on its PATH (C8): per command options, option values,
 * session ids, paths.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let bin_dir: string;

beforeEach(async () => {
  sandbox = await make_sandbox({ 'notes.md': '# notes\n', 'src/main.ts': 'export {};\n' });
  bin_dir = join(sandbox.temp.path, 'bin');
  await mkdir(bin_dir);
  await symlink(BIN, join(bin_dir, 'lich'));
  await symlink(process.execPath, join(bin_dir, 'node'));
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
  return execFileSync('bash', ['--norc', '--noprofile', '-c', program], {
    encoding: 'utf8',
    cwd: sandbox.work_dir,
    env: { ...sandbox.env, PATH: `${bin_dir}:${sandbox.env.PATH ?? ''}` },
  })
    .split('\n')
    .filter((line) => line !== '');
}

describe('lich completion', () => {
  it('bash: commands, subcommands, per command options, values, session ids, paths', async () => {
    const { stdout: script, code } = await run(['completion', 'bash']);
    expect(code).toBe(0);
    expect(bash_complete(script, ['lich', 'ses'])).toEqual(['sessions']);
    expect(bash_complete(script, ['lich', 'sessions', 're'])).toEqual(['resume', 'repair']);
    expect(bash_complete(script, ['lich', '--output-f'])).toEqual(['--output-format']);
    expect(bash_complete(script, ['lich', '-C', 'x', 'completion', ''])).toEqual([
      'bash',
      'zsh',
      'fish',
    ]);
    // option values, not command names
    expect(bash_complete(script, ['lich', '--output-format', ''])).toEqual([
      'text',
      'json',
      'stream-json',
    ]);
    expect(bash_complete(script, ['lich', '--approval-mode', ''])).toEqual([
      'default',
      'auto_edit',
      'yolo',
    ]);
    // options are per command: chat has no --print or --output-format
    const chat = bash_complete(script, ['lich', 'chat', '--']);
    expect(chat).toContain('--resume');
    expect(chat).not.toContain('--print');
    expect(chat).not.toContain('--output-format');
    expect(bash_complete(script, ['lich', 'mcp', '--'])).toEqual(
      expect.arrayContaining(['--url', '--env', '--header', '--no-check']),
    );
    // paths where an option takes one
    expect(bash_complete(script, ['lich', '--config', 'no'])).toEqual(['notes.md']);
    expect(bash_complete(script, ['lich', '-C', 's'])).toEqual(['src']);
    // session ids in place
    const sessions = join(sandbox.work_dir, '.lich', 'sessions');
    await mkdir(sessions, { recursive: true });
    for (const id of ['2026-12-01T10-00-00-000Z-aaaa1111', '2026-12-02T10-00-00-000Z-bbbb2222']) {
      await writeFile(join(sessions, `${id}.jsonl`), '');
    }
    expect(bash_complete(script, ['lich', 'sessions', 'show', ''])).toEqual([
      'bbbb2222',
      'aaaa1111',
    ]);
    expect(bash_complete(script, ['lich', 'chat', '--resume', 'a'])).toEqual(['aaaa1111']);
  });

  it('zsh and fish scripts ask lich at each Tab; fish gets descriptions', async () => {
    const zsh = await run(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef lich/);
    expect(zsh.stdout).toContain('lich __complete');
    expect(zsh.stdout).toContain('_files -/');
    const fish = await run(['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain('__fish_complete_path');
    expect(fish.stdout).not.toMatch(/^complete -c lich -f$/m);
    const described = await run_lich(['__complete', '--output-f'], {
      cwd: sandbox.work_dir,
      env: { ...sandbox.env, LICH_COMPLETE_DESCRIPTIONS: '1' },
    });
    expect(described.stdout).toMatch(/^--output-format\ttext \(the answer\)/m);
    const bad = await run(['completion', 'tcsh']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no completion for 'tcsh'/);
  });
});

/**
 * Finding X8 against the real bash: each spelling is first run by bash, with `rm` a stub that
 * prints its arguments, inside a bubblewrap sandbox where nothing is writable (so a stub that did
 * not take its place could destroy nothing), to show bash really runs `rm -rf /` from it; then
 * the hardline must refuse the same line, and the terminal tool must run nothing.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import { check_hardline } from '../src/shell/hardline.js';
import { terminal_tool } from '../src/shell/terminal.js';

/** The 7 spellings of the finding that bash runs and the check let through. */
const SPELLINGS = [
  "$'\\x72\\x6d' -rf /",
  'rm -rf {/,}',
  'rm -rf /{,}',
  "bash <<< 'rm -rf /'",
  "sh -s <<< 'rm -rf /'",
  "echo 'rm -rf /' | sh",
  'IFS=,; c=rm,-rf,/; $c',
];

let base: string;
let stubs: string;
let work_dir: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-hardline-bash-')));
  stubs = join(base, 'stubs');
  work_dir = join(base, 'work');
  await mkdir(stubs);
  await mkdir(work_dir);
  await writeFile(join(stubs, 'rm'), '#!/bin/sh\necho "STUB-RM $*"\n');
  await chmod(join(stubs, 'rm'), 0o755);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** What bash prints running `line`, `rm` stubbed, in a sandbox with nothing writable. */
function bash_runs(line: string): string {
  const result = spawnSync(
    'bwrap',
    [
      '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
      '--unshare-all', '--die-with-parent', '--cap-drop', 'ALL',
      '--', 'env', `PATH=${stubs}:${process.env.PATH ?? '/usr/bin:/bin'}`, 'bash', '-c', line,
    ], // biome-ignore format: argument pairs
    { encoding: 'utf8', timeout: 10_000 },
  );
  return `${result.stdout}${result.stderr}`;
}

describe_gated([sandbox_gate()], 'the hardline reads a line as bash does (X8)', () => {
  it.each(SPELLINGS)('bash runs rm -rf / from %s, and the hardline refuses it', async (line) => {
    expect(bash_runs(line)).toMatch(/STUB-RM -rf \/( |$)/m);
    expect(check_hardline(line)?.rule).toBe('rm_root');
    const registry = new ToolRegistry();
    registry.register(terminal_tool);
    const tools = new ToolExecutor(registry, { work_dir });
    const result = await tools.execute('terminal', { command: line });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^Refused by the hardline: /);
  });
});

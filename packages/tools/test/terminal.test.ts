import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import { collect_tree, is_zombie, list_processes } from '../src/shell/process_list.js';
import { terminal_tool } from '../src/shell/terminal.js';
import { printed_pids, process_gone, wait_for } from './proc_helpers.js';

let work_dir: string;
const planted = ['FAKE_API_KEY', 'FAKE_GITHUB_TOKEN', 'fake_client_secret', 'FAKE_DB_PASSWORD'];

beforeAll(async () => {
  work_dir = await realpath(await mkdtemp(join(tmpdir(), 'lich-terminal-')));
  for (const name of planted) process.env[name] = 'do-not-leak';
});

afterAll(async () => {
  for (const name of planted) delete process.env[name];
  await rm(work_dir, { recursive: true, force: true });
});

afterEach(async () => {
  await rm(join(work_dir, 'pid'), { force: true });
});

/**
 * An executor with the sandbox off: these tests read process ids from inside the command, which a
 * sandbox's PID namespace would renumber (the sandboxed cases are in sandbox.test.ts).
 */
function executor(max_output_chars?: number) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  return new ToolExecutor(registry, { work_dir, max_output_chars, sandbox: { mode: 'off' } });
}

/**
 * The pids of the tree whose leader wrote its pid to `<work_dir>/pid`, seen while it runs, once
 * at least `expected` processes are up (or after 5 s).
 */
async function tree_of_pid_file(expected: number): Promise<number[]> {
  await wait_for(() => existsSync(join(work_dir, 'pid')), 5_000);
  const leader = Number((await readFile(join(work_dir, 'pid'), 'utf8')).trim());
  let tree: number[] = [];
  const deadline = Date.now() + 5_000;
  while (tree.length < expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const processes = (await list_processes()) ?? [];
    tree = collect_tree(leader, processes)
      .filter((entry) => !is_zombie(entry))
      .map((entry) => entry.pid);
  }
  return tree;
}

describe('terminal', () => {
  it('declares the 300 s limit and shows the model command and timeout_ms', () => {
    expect(terminal_tool.timeout_ms).toBe(300_000);
    const registry = new ToolRegistry();
    registry.register(terminal_tool);
    const [definition] = registry.definitions();
    expect(Object.keys(definition?.parameters.properties as object)).toEqual([
      'command',
      'timeout_ms',
    ]);
  });

  it('runs bash in the work dir and merges stdout and stderr in order', async () => {
    const result = await executor().execute('terminal', {
      command: 'pwd; echo one; echo two >&2; echo three; echo four >&2',
    });
    expect(result.ok).toBe(true);
    expect(result.output).toBe(`${work_dir}\none\ntwo\nthree\nfour\n[exit code 0]`);
  });

  it('reports a non-zero exit code as ok: false, with the output', async () => {
    const result = await executor().execute('terminal', { command: 'echo failing; exit 3' });
    expect(result.ok).toBe(false);
    expect(result.output).toBe('failing\n[exit code 3]');
    expect(result.error).toBe('exit code 3');
  });

  it('kills sleep 100 and its whole tree after a 1 s timeout, leaving no process', async () => {
    const command =
      'echo $$ > pid; sleep 100 & bash -c "sleep 100 & sleep 100; wait" & echo waiting; sleep 100';
    const running = executor().execute('terminal', { command, timeout_ms: 1_000 });
    const tree = await tree_of_pid_file(5);
    expect(tree.length).toBeGreaterThanOrEqual(5); // bash (or its last sleep), sleeps, inner bash
    const result = await running;
    expect(result.ok).toBe(false);
    expect(result.output).toContain('waiting');
    expect(result.output).toMatch(/timed out after 1000 ms; the process tree was killed/);
    expect(result.duration_ms).toBeLessThan(4_000);
    for (const pid of tree) expect(process_gone(pid)).toBe(true);
  });

  it('kills the tree when the run is aborted mid-command', async () => {
    const controller = new AbortController();
    const running = executor().execute(
      'terminal',
      { command: 'echo $$ > pid; (sleep 100; echo never) & sleep 100' },
      { signal: controller.signal },
    );
    const tree = await tree_of_pid_file(3);
    expect(tree.length).toBeGreaterThanOrEqual(3);
    controller.abort();
    const result = await running;
    expect(result.ok).toBe(false);
    expect(result.error).toBe('aborted');
    expect(result.output).not.toContain('never');
    for (const pid of tree) expect(process_gone(pid)).toBe(true);
  });

  it('passes no variable named like a credential, unless told to', async () => {
    const result = await executor().execute('terminal', { command: 'env' });
    expect(result.ok).toBe(true);
    const names = result.output.split('\n').map((line) => line.split('=')[0] ?? '');
    expect(names).toContain('PATH');
    expect(names.filter((name) => /KEY|TOKEN|SECRET|PASSWORD/i.test(name))).toEqual([]);
    expect(result.output).not.toContain('do-not-leak');

    const passed = await executor().execute(
      'terminal',
      { command: 'echo "$FAKE_API_KEY/$FAKE_GITHUB_TOKEN"' },
      { env_passthrough: ['FAKE_API_KEY'] },
    );
    expect(passed.output).toBe(
      'do-not-leak/\n[exit code 0]\n[sandbox] FAKE_GITHUB_TOKEN is not passed to commands: they get a base set of variables (PATH, HOME, LANG, TERM, toolchain settings…). To pass one, add its name to sandbox.env_passthrough in .lich/config.json.',
    );
  });

  it('refuses the hardline without running anything, and runs the same words quoted', async () => {
    const refused = await executor().execute('terminal', { command: 'touch marker; rm -rf ~' });
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/^Refused by the hardline: .*home directory/);
    expect(existsSync(join(work_dir, 'marker'))).toBe(false);

    const quoted = await executor().execute('terminal', { command: 'echo "rm -rf /"' });
    expect(quoted).toMatchObject({ ok: true, output: 'rm -rf /\n[exit code 0]' });
  });

  it('closes stdin, so reading it ends at once', async () => {
    const result = await executor().execute('terminal', {
      command: 'read line; echo "read:$? [$line]"; cat; echo end',
    });
    expect(result.output).toBe('read:1 []\nend\n[exit code 0]');
    expect(result.duration_ms).toBeLessThan(3_000);
  });

  it('ends background jobs with the command instead of waiting for them', async () => {
    const result = await executor().execute('terminal', {
      command: 'sleep 100 & echo "pid=$!"',
    });
    expect(result.ok).toBe(true);
    expect(result.duration_ms).toBeLessThan(3_000);
    const pid = Number(/pid=(\d+)/.exec(result.output)?.[1]);
    expect(process_gone(pid)).toBe(true);
  });

  it('ends what a command started in a session of its own (setsid, nohup) when it exits', async () => {
    const result = await executor().execute('terminal', {
      command:
        '(setsid nohup sh -c \'echo "pid=$$"; exec sleep 100\' >> detached 2>&1 &); ' +
        'setsid -f sh -c \'echo "pid=$$" >> detached; exec sleep 100\'; ' +
        'while [ "$(grep -s -c pid= detached)" != 2 ]; do sleep 0.05; done; echo started',
    });
    expect(result.output).toMatch(/^started\n\[exit code 0\]/);
    const pids = printed_pids(await readFile(join(work_dir, 'detached'), 'utf8'));
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await wait_for(() => process_gone(pid), 3_000)).toBe(true);
    await rm(join(work_dir, 'detached'));
  });

  it('clamps a long output keeping head and tail', async () => {
    const result = await executor(4_000).execute('terminal', { command: 'seq 1 200000' });
    expect(result.ok).toBe(true);
    expect(result.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.output).toMatch(/199999\n200000\n\[exit code 0\]$/);
    expect(result.output).toMatch(/bytes of output cut/);
    expect(result.output.length).toBeLessThanOrEqual(4_000);
  });

  it('takes a larger timeout_ms as the 300 s limit and reports a missing work dir', async () => {
    const long = await executor().execute('terminal', { command: 'echo hi', timeout_ms: 9e8 });
    expect(long).toMatchObject({ ok: true, output: 'hi\n[exit code 0]' });
    const missing = await executor().execute(
      'terminal',
      { command: 'echo hi' },
      { work_dir: join(work_dir, 'gone') },
    );
    expect(missing.ok).toBe(false);
    expect(missing.output).toMatch(/could not start: the work dir .*gone does not exist/);
  });
});

describe('terminal hardline, against stand-in rm, dd and mkfs first on PATH', () => {
  let bin: string;
  let marker: string;
  let saved_path: string | undefined;

  beforeAll(async () => {
    bin = await realpath(await mkdtemp(join(tmpdir(), 'lich-stand-ins-')));
    // in the work dir, the one place a sandboxed command may write
    marker = join(work_dir, 'stand-in-ran');
    // each stand-in only records that it was reached: a bypass leaves a marker, not damage
    for (const name of ['rm', 'dd', 'mkfs', 'mkfs.ext4']) {
      await writeFile(join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${marker}'\n`, {
        mode: 0o755,
      });
    }
    saved_path = process.env.PATH;
    process.env.PATH = `${bin}:${saved_path}`;
  });

  afterAll(async () => {
    process.env.PATH = saved_path;
    await rm(bin, { recursive: true, force: true });
  });

  it('runs a stand-in when a command is allowed, so a bypass would show', async () => {
    const result = await executor().execute('terminal', { command: 'rm -rf ./build' });
    expect(result.ok).toBe(true);
    expect(await readFile(marker, 'utf8')).toBe('rm -rf ./build\n');
    await rm(marker);
  });

  it.each([
    'echo / | xargs rm -rf',
    "printf '/\\n' | xargs -I{} rm -rf {}",
    '$(echo rm) -rf /',
    '`echo rm` -rf /',
    'x=/; rm -rf $x',
    'cd / && rm -rf *',
    'find / -maxdepth 0 -exec rm -rf {} \\;',
    'cd ~ && rm -rf .',
    '$(echo dd) if=/dev/zero of=/dev/sda',
    'm=mkfs.ext4; $m /dev/sdb',
  ])('refuses %s and reaches no stand-in', async (command) => {
    const result = await executor().execute('terminal', { command });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^Refused by the hardline: /);
    expect(existsSync(marker)).toBe(false);
  });
});

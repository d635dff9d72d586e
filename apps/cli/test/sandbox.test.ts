import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { expect, it } from 'vitest';
import { openai_env, run_lich, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

/** A PATH holding node and bash but no bwrap: a machine without bubblewrap. */
async function path_without_bwrap(): Promise<string> {
  const bin = join(sandbox.temp.path, 'bin');
  await mkdir(bin);
  await symlink(process.execPath, join(bin, 'node'));
  await symlink('/bin/bash', join(bin, 'bash'));
  return bin;
}

describe_gated([sandbox_gate()], 'lich and the sandbox', () => {
  it('lich sandbox check says bubblewrap runs here, and why', async () => {
    const result = await run_lich(['sandbox', 'check'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^bwrap: bubblewrap [\d.]+: read-only root/);
    expect(result.stdout).toMatch(/✓ bwrap on PATH: \//);
    expect(result.stdout).toMatch(/config: mode auto, network off/);
    expect(result.stdout).toMatch(/terminal and run_tests commands run sandboxed \(bwrap\)/);
    expect(result.stdout).toMatch(/^unix sockets: none \(seccomp filter\)$/m);
    expect(result.stdout).toMatch(/^process limit: 1024 \((pids cgroup|RLIMIT_NPROC)\)$/m);
    expect(result.stdout).toMatch(
      /^environment: the base set \(sandbox\.env_passthrough adds names\)$/m,
    );
    const json = await run_lich(['sandbox', 'check', '--json'], {
      cwd: sandbox.work_dir,
      env: sandbox.env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({
      supported: true,
      kind: 'bwrap',
      sandboxed: true,
    });
  });

  it('lich sandbox check without bwrap says it is missing and exits 1', async () => {
    const env = { ...sandbox.env, PATH: await path_without_bwrap() };
    const result = await run_lich(['sandbox', 'check'], { cwd: sandbox.work_dir, env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^no sandbox: bubblewrap \(bwrap\) is not installed/);
    expect(result.stdout).toMatch(/with one warning per session/);
  });

  it("runs the model's command sandboxed: progress and --json say so, the write outside fails", async () => {
    const outside = join(tmpdir(), `lich-cli-outside-${process.pid}-${Date.now()}`);
    server.enqueue(
      {
        tool_calls: [
          {
            name: 'terminal',
            arguments: { command: `echo x > ${outside}; echo in > inside.txt; echo done` },
          },
        ],
      },
      { text: 'done' },
    );
    const result = await run_lich(['--json', 'write two files'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/✓ terminal .* \[sandboxed: bwrap\]/);
    const document = JSON.parse(result.stdout);
    expect(document.tool_calls).toMatchObject([{ name: 'terminal', ok: true, sandbox: 'bwrap' }]);
    expect(existsSync(outside)).toBe(false);
    expect(await readFile(join(sandbox.work_dir, 'inside.txt'), 'utf8')).toBe('in\n');
  });

  it('warns once where no sandbox can start, and refuses with sandbox.mode required', async () => {
    const env = { ...openai_env(sandbox, server.base_url), PATH: await path_without_bwrap() };
    server.enqueue(
      { tool_calls: [{ name: 'terminal', arguments: { command: 'echo one' } }] },
      { tool_calls: [{ name: 'terminal', arguments: { command: 'echo two' } }] },
      { text: 'ok' },
    );
    const auto = await run_lich(['run twice'], { cwd: sandbox.work_dir, env });
    expect(auto.code).toBe(0);
    expect(auto.stderr.match(/Commands run without a sandbox/g)).toHaveLength(1);
    expect(auto.stderr).toMatch(/✓ terminal echo one .*\[not sandboxed\]/);

    server.enqueue(
      { tool_calls: [{ name: 'terminal', arguments: { command: 'echo ran > ran.txt' } }] },
      { text: 'refused' },
    );
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ sandbox: { mode: 'required' } }),
    );
    const required = await run_lich(['run it'], { cwd: sandbox.work_dir, env });
    expect(required.stderr).toMatch(/✗ terminal .*\[not sandboxed\] — sandbox required/);
    expect(existsSync(join(sandbox.work_dir, 'ran.txt'))).toBe(false);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import {
  openai_env,
  request_body,
  run_lich,
  type Sandbox,
  sandbox_and_server_each,
} from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;

sandbox_and_server_each((made) => ({ sandbox, server } = made));

type Body = {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string } }[];
};

async function ask(
  args: string[] = ['hi'],
): Promise<{ system: string; tools: string[]; stderr: string; code: number | null }> {
  server.enqueue({ text: 'ok' });
  const result = await run_lich(args, {
    cwd: sandbox.work_dir,
    env: openai_env(sandbox, server.base_url),
    timeout_ms: 10_000,
  });
  const body = request_body<Body>(server, server.requests.length - 1);
  return {
    system: body.messages[0]?.content ?? '',
    tools: (body.tools ?? []).map((tool) => tool.function.name),
    stderr: result.stderr,
    code: result.code,
  };
}

describe('project instructions', () => {
  it('does not read an AGENTS.md that links out of the work dir, nor one that is a device', async () => {
    const secret = join(sandbox.temp.path, 'secret.txt');
    await writeFile(secret, 'THE-SECRET-OUTSIDE');
    await symlink(secret, join(sandbox.work_dir, 'AGENTS.md'));
    const linked = await ask();
    expect(linked.code).toBe(0);
    expect(linked.system).not.toContain('THE-SECRET-OUTSIDE');
    expect(linked.stderr).toMatch(/AGENTS\.md were not read/);
    await mkdir(join(sandbox.work_dir, 'sub'));
    await symlink('/dev/zero', join(sandbox.work_dir, 'sub', 'AGENTS.md'));
    const started = Date.now();
    server.enqueue({ text: 'ok' });
    const device = await run_lich(['-C', 'sub', 'hi'], {
      cwd: sandbox.work_dir,
      env: openai_env(sandbox, server.base_url),
    });
    expect(device.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('does not wait on an AGENTS.md that is a FIFO', async () => {
    execFileSync('mkfifo', [join(sandbox.work_dir, 'AGENTS.md')]);
    const result = await ask();
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/not a regular file/);
  });

  it('falls back to CLAUDE.md, then GEMINI.md, and reads the user AGENTS.md too', async () => {
    await writeFile(join(sandbox.work_dir, 'GEMINI.md'), 'Gemini rules.');
    expect((await ask()).system).toContain('Gemini rules.');
    await writeFile(join(sandbox.work_dir, 'CLAUDE.md'), 'Claude rules.');
    const claude = await ask();
    expect(claude.system).toContain('Claude rules.');
    expect(claude.system).not.toContain('Gemini rules.');
    await writeFile(join(sandbox.work_dir, 'AGENTS.md'), 'Agents rules.');
    await mkdir(join(sandbox.xdg, 'lich'));
    await writeFile(join(sandbox.xdg, 'lich', 'AGENTS.md'), 'My own rules everywhere.');
    const both = await ask();
    expect(both.system).toContain('Agents rules.');
    expect(both.system).not.toContain('Claude rules.');
    expect(both.system.indexOf('My own rules everywhere.')).toBeLessThan(
      both.system.indexOf('Agents rules.'),
    );
  });

  it('sets the system prompt with --system-prompt and extends it with --append-system-prompt', async () => {
    const set = await ask(['--system-prompt', 'You are a pirate.', 'hi']);
    expect(set.system.startsWith('You are a pirate.')).toBe(true);
    expect(set.system).not.toContain('You are Lich');
    const appended = await ask(['--append-system-prompt', 'Answer in French.', 'hi']);
    expect(appended.system).toMatch(/^You are Lich[\s\S]*\n\nAnswer in French\.$/);
    // at the very end: after the project instructions too (C38)
    await writeFile(join(sandbox.work_dir, 'AGENTS.md'), 'Agents rules.');
    const after_agents = await ask(['--append-system-prompt', 'APPENDED', 'hi']);
    expect(after_agents.system.indexOf('Agents rules.')).toBeGreaterThan(-1);
    expect(after_agents.system.endsWith('\n\nAPPENDED')).toBe(true);
  });
});

describe('tool filters', () => {
  it('narrows the tools with --allowed-tools and takes some away with --disallowed-tools', async () => {
    const allowed = await ask(['--allowed-tools', 'read_file,grep', 'hi']);
    expect(allowed.tools.sort()).toEqual(['grep', 'read_file']);
    const disallowed = await ask([
      '--disallowed-tools',
      'terminal',
      '--disallowed-tools',
      'write_*',
      'hi',
    ]);
    expect(disallowed.tools).toContain('read_file');
    expect(disallowed.tools).not.toContain('terminal');
    expect(disallowed.tools).not.toContain('write_file');
  });

  it('warns when a tools_enabled pattern matches no tool', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'));
    await writeFile(
      join(sandbox.work_dir, '.lich', 'config.json'),
      JSON.stringify({ tools_enabled: ['reed_file'] }),
    );
    const result = await ask();
    expect(result.stderr).toMatch(
      /warning: tools_enabled: 'reed_file' matches no tool \(did you mean 'read_file'\?\)/,
    );
    expect(result.stderr).toMatch(/allows none of the tools/);
    expect(result.tools).toEqual([]);
  });
});

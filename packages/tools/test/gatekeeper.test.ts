import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { gatekeeper_plugin } from '../src/gatekeeper.js';
import { PluginHost } from '../src/plugin.js';
import { ToolRegistry } from '../src/registry.js';
import { terminal_tool } from '../src/shell/terminal.js';

let repo: string;

const PASSING = "import test from 'node:test';\ntest('adds', () => {});\n";
const FAILING =
  "import test from 'node:test';\nimport assert from 'node:assert';\n" +
  "test('adds', () => { assert.strictEqual(1 + 1, 3, 'sum is wrong'); });\n";

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

async function executor(options: Parameters<typeof gatekeeper_plugin>[0] = {}, work_dir = repo) {
  const host = new PluginHost();
  await host.load(gatekeeper_plugin(options));
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  host.register_tools(registry);
  const result = new ToolExecutor(registry, { work_dir });
  result.add_hooks(host.tool_hooks);
  return result;
}

beforeEach(async () => {
  repo = await realpath(await mkdtemp(join(tmpdir(), 'lich-gatekeeper-')));
  git('init', '--quiet');
  git('config', 'user.name', 'Lich Test');
  git('config', 'user.email', 'lich@example.invalid');
  git('config', 'commit.gpgsign', 'false');
  await writeFile(
    join(repo, 'package.json'),
    JSON.stringify({ name: 'fixture', private: true, scripts: { test: 'node --test' } }),
  );
  await writeFile(join(repo, 'package-lock.json'), '{"lockfileVersion":3}');
  await writeFile(join(repo, 'sum.test.mjs'), PASSING);
  git('add', '-A');
  git('commit', '--quiet', '-m', 'initial');
});

afterEach(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('gatekeeper git_commit', () => {
  it('refuses to commit while the tests fail, then commits once they pass', async () => {
    const tools = await executor();
    await writeFile(join(repo, 'sum.test.mjs'), FAILING);
    await writeFile(join(repo, 'feature.txt'), 'new work\n');

    const refused = await tools.execute('git_commit', { message: 'feat: add feature' });
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/^Not committed: the tests did not pass/);
    expect(refused.output).toContain('Tests failed: 1 failed, 0 passed (node --test)');
    expect(refused.output).toContain('Command: npm test');
    expect(refused.output).toContain('sum is wrong');
    expect(git('rev-list', '--count', 'HEAD')).toBe('1');
    expect(git('diff', '--cached', '--name-only')).toBe(''); // nothing staged either

    await writeFile(join(repo, 'sum.test.mjs'), PASSING);
    const committed = await tools.execute('git_commit', { message: 'feat: add feature' });
    expect(committed.ok).toBe(true);
    expect(committed.output).toMatch(/^Committed [0-9a-f]{7,} feat: add feature/);
    expect(committed.output).toContain('feature.txt');
    expect(committed.output).toContain('Tests passed: 0 failed, 1 passed (node --test)');
    expect(git('rev-list', '--count', 'HEAD')).toBe('2');
    expect(git('log', '-1', '--format=%s')).toBe('feat: add feature');
    expect(git('show', '--name-only', '--format=', 'HEAD')).toBe('feature.txt');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('says so when the work dir is not a git repository', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'lich-no-git-')));
    try {
      const tools = await executor({ test_command: 'true' }, outside);
      const result = await tools.execute('git_commit', { message: 'x' });
      expect(result).toMatchObject({ ok: false, error: 'not a git repository' });
      expect(result.output).toContain(`${outside} is not inside a git repository`);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('says so when there is nothing to commit, without running the tests', async () => {
    const tools = await executor({ test_command: 'touch ran' });
    const result = await tools.execute('git_commit', { message: 'x' });
    expect(result).toMatchObject({ ok: false, error: 'nothing to commit' });
    expect(git('status', '--porcelain')).toBe(''); // the test run left nothing behind either
  });

  it('commits only what is under the work dir', async () => {
    await mkdir(join(repo, 'app'));
    await writeFile(join(repo, 'app', 'main.txt'), 'inside\n');
    await writeFile(join(repo, 'package.json'), '{"name":"changed outside"}');
    const tools = await executor({ test_command: 'true' }, join(repo, 'app'));
    const result = await tools.execute('git_commit', { message: 'app only' });
    expect(result.ok).toBe(true);
    expect(git('show', '--name-only', '--format=', 'HEAD')).toBe('app/main.txt');
    expect(git('status', '--porcelain')).toBe('M package.json');
  });

  it('reports a failing git step (no identity) and commits nothing; runs no hook', async () => {
    // the repository's hooks never run: git_commit's git runs with core.hooksPath=/dev/null
    await writeFile(
      join(repo, '.git', 'hooks', 'pre-commit'),
      '#!/bin/sh\necho "lint failed"\nexit 1\n',
      { mode: 0o755 },
    );
    git('config', 'user.name', '');
    await writeFile(join(repo, 'feature.txt'), 'x\n');
    const tools = await executor({ test_command: 'true' });
    const result = await tools.execute('git_commit', { message: 'x' });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^Not committed: `git commit` failed \(exit code 128\)/);
    expect(result.output).toMatch(/empty ident name/);
    expect(result.output).not.toContain('lint failed');
    expect(git('rev-list', '--count', 'HEAD')).toBe('1');
  });

  it('refuses a bare git commit through terminal, but not quoted text', async () => {
    await writeFile(join(repo, 'feature.txt'), 'x\n');
    const tools = await executor();
    const blocked = await tools.execute('terminal', {
      command: 'git add -A && git commit -m sneaky',
    });
    expect(blocked.ok).toBe(false);
    expect(blocked.output).toMatch(/git_commit/);
    expect(git('rev-list', '--count', 'HEAD')).toBe('1');
    const quoted = await tools.execute('terminal', { command: 'echo "git commit"' });
    expect(quoted.ok).toBe(true);
    // without bubblewrap a note about the missing sandbox follows the exit code
    expect(quoted.output).toMatch(/^git commit\n\[exit code 0\]/);

    const open = await executor({ block_terminal_commits: false });
    const allowed = await open.execute('terminal', {
      command: 'git add -A && git commit -qm direct',
    });
    expect(allowed.ok).toBe(true);
    expect(git('rev-list', '--count', 'HEAD')).toBe('2');
  });

  it('registers git_commit under the plugin name gatekeeper with a message parameter', async () => {
    const plugin = gatekeeper_plugin();
    expect(plugin.name).toBe('gatekeeper');
    const host = new PluginHost();
    await host.load(plugin);
    const [tool] = host.tools();
    expect(tool?.name).toBe('git_commit');
    const registry = new ToolRegistry();
    host.register_tools(registry);
    expect(registry.definitions()[0]?.parameters).toMatchObject({
      type: 'object',
      required: ['message'],
    });
    const tools = new ToolExecutor(registry, { work_dir: repo });
    const empty = await tools.execute('git_commit', { message: '   ' });
    expect(empty.ok).toBe(false);
  });
});

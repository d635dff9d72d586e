/**
 * Findings X2 and X3 with a real git: a repository in husky's layout (`core.hooksPath=.husky`)
 * holding a nested repository. A sandboxed command plants no hook and no config git would run,
 * the gatekeeper's own git runs no hook, and Lich never commits its own state.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { gatekeeper_plugin } from '../src/gatekeeper.js';
import { PluginHost } from '../src/plugin.js';
import { ToolRegistry } from '../src/registry.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { terminal_tool } from '../src/shell/terminal.js';

let base: string;
let repo: string;
let outside: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

async function tools(sandbox: Partial<SandboxConfig> = {}) {
  const host = new PluginHost();
  await host.load(gatekeeper_plugin());
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  host.register_tools(registry);
  const executor = new ToolExecutor(registry, { work_dir: repo, sandbox });
  executor.add_hooks(host.tool_hooks);
  return executor;
}

/** A hook script that records, outside the work dir, that it ran and as whom. */
const hook = (marker: string) => `#!/bin/sh\nid > ${marker}\n`;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-git-hooks-')));
  repo = join(base, 'proj');
  outside = join(base, 'outside');
  await mkdir(outside);
  await mkdir(join(repo, '.husky'), { recursive: true });
  git(repo, 'init', '--quiet');
  git(repo, 'config', 'user.email', 'a@b.c');
  git(repo, 'config', 'user.name', 'a');
  git(repo, 'config', 'commit.gpgsign', 'false');
  git(repo, 'config', 'core.hooksPath', '.husky');
  await writeFile(join(repo, '.husky', '.keep'), '');
  await writeFile(
    join(repo, 'package.json'),
    JSON.stringify({
      name: 't',
      version: '1.0.0',
      scripts: { test: 'node -e "console.log(\'1 passing\')"' },
    }),
  );
  await writeFile(join(repo, '.gitignore'), '.env\nnested/\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '--no-verify', '-m', 'init');
  // a nested repository, as a vendored project or an old-style submodule is
  await mkdir(join(repo, 'nested'));
  git(join(repo, 'nested'), 'init', '--quiet');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe_gated([sandbox_gate()], 'hooks a sandboxed command could plant (X2)', () => {
  it("cannot write into core.hooksPath (husky's .husky)", async () => {
    const result = await (await tools()).execute('terminal', {
      command: `printf '${hook(join(outside, 'ESCAPED')).replace(/\n/g, '\\n')}' > .husky/pre-commit; chmod +x .husky/pre-commit; echo planted`,
    });
    expect(result.sandbox).toBe('bwrap');
    expect(result.output).toMatch(/Read-only file system/);
    expect(existsSync(join(repo, '.husky', 'pre-commit'))).toBe(false);
    // the rest of the work dir stays writable
    const ok = await (await tools()).execute('terminal', { command: 'echo change > change.txt' });
    expect(ok.ok).toBe(true);
  });

  it("cannot write a nested repository's hooks or config, nor move its .git away", async () => {
    const result = await (await tools()).execute('terminal', {
      command:
        'echo "#!/bin/sh" > nested/.git/hooks/post-checkout; echo "[core]" >> nested/.git/config; mv nested/.git nested/git-moved; ls nested/.git/hooks | grep -c post-checkout',
    });
    expect(result.output).toMatch(/Read-only file system/);
    expect(existsSync(join(repo, 'nested', '.git', 'hooks', 'post-checkout'))).toBe(false);
    expect(existsSync(join(repo, 'nested', 'git-moved'))).toBe(false);
    expect(await readFile(join(repo, 'nested', '.git', 'config'), 'utf8')).not.toMatch(
      /\[core\]\n$/,
    );
  });

  it('cannot point git at a config of its own through .git/commondir', async () => {
    const marker = join(outside, 'FSMONITOR');
    const result = await (await tools()).execute('terminal', {
      command: [
        'mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/',
        `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "id > ${marker}; false"\\n' > evil/config`,
        'echo ../evil > .git/commondir && echo planted',
      ].join('; '),
    });
    expect(result.output).toContain('planted');
    expect(result.output).toMatch(/\[sandbox\] Removed \.git\/commondir, which the command made/);
    expect(existsSync(join(repo, '.git', 'commondir'))).toBe(false);
    git(repo, 'status', '--porcelain'); // what you would run next, outside the sandbox
    expect(existsSync(marker)).toBe(false);
  });
});

it('runs no hook of the repository when git_commit commits (X2)', async () => {
  const marker = join(outside, 'ESCAPED');
  // hooks already in place (planted where no sandbox ran): husky's and .git/hooks' own
  await writeFile(join(repo, '.husky', 'pre-commit'), hook(marker));
  await writeFile(join(repo, '.husky', 'post-commit'), hook(`${marker}-post`));
  await mkdir(join(repo, '.git', 'hooks'), { recursive: true });
  await writeFile(join(repo, '.git', 'hooks', 'pre-commit'), hook(`${marker}-git`));
  for (const name of ['.husky/pre-commit', '.husky/post-commit', '.git/hooks/pre-commit']) {
    await chmod(join(repo, name), 0o755);
  }
  git(repo, 'config', 'core.fsmonitor', `id > ${marker}-fsmonitor; false`);
  await writeFile(join(repo, 'change.txt'), 'change\n');
  const result = await (await tools()).execute('git_commit', { message: 'a change' });
  expect(result.output).toMatch(/^Committed /);
  expect(git(repo, 'log', '--format=%s', '-n', '1')).toBe('a change');
  for (const suffix of ['', '-post', '-git', '-fsmonitor']) {
    expect(existsSync(`${marker}${suffix}`)).toBe(false);
  }
});

it("never commits Lich's own state, even when a command staged it (X3)", async () => {
  await writeFile(join(repo, '.env'), 'STRIPE_SECRET_KEY=sk_live_GITLEAK_51\n');
  await mkdir(join(repo, '.lich', 'sessions'), { recursive: true });
  await writeFile(
    join(repo, '.lich', 'sessions', 's1.jsonl'),
    '{"type":"tool","content":"STRIPE_SECRET_KEY=sk_live_GITLEAK_51"}\n',
  );
  await writeFile(join(repo, '.lich', 'sessions', 's1.jsonl.lock'), '');
  await mkdir(join(repo, 'logs', 'sessions'), { recursive: true });
  await writeFile(join(repo, 'logs', 'sessions', 's2.jsonl'), 'GITLEAK_52\n');
  await writeFile(join(repo, 'change.txt'), 'x\n');
  const executor = await tools();
  // a command may stage anything: the gatekeeper's commit must still leave it out
  const staged = await executor.execute('terminal', {
    command: 'git add -f .lich/sessions/s1.jsonl && git diff --cached --name-only',
  });
  expect(staged.output).toContain('.lich/sessions/s1.jsonl');
  const result = await executor.execute(
    'git_commit',
    { message: 'a change' },
    { session_dir: join(repo, 'logs', 'sessions') },
  );
  expect(result.output).toMatch(/^Committed /);
  const files = git(repo, 'show', '--name-only', '--format=', 'HEAD').split('\n');
  expect(files).toContain('change.txt');
  expect(files.filter((file) => file.startsWith('.lich') || file.startsWith('logs/'))).toEqual([]);
  expect(git(repo, 'log', '-p', '-n', '1')).not.toMatch(/GITLEAK/);
});

/**
 * Findings X5 and X6: what a sandboxed command can learn. Its environment is an allow-list, and
 * the credential stores of the home folder are masked, for commands and file tools alike.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { read_file_tool } from '../src/fs/read_file.js';
import { ToolRegistry } from '../src/registry.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { terminal_tool } from '../src/shell/terminal.js';

/** The variables of X5: each holds a marker the command's output must not show. */
const LEAKY_ENV: Record<string, string> = {
  DATABASE_URL: 'postgres://app:ENV-PW-11@db.internal/prod',
  REDIS_URL: 'redis://:ENV-PW-12@cache:6379',
  SENTRY_DSN: 'https://ENV-PW-13@o1.ingest.sentry.io/1',
  HTTPS_PROXY: 'http://user:ENV-PW-14@proxy:3128',
  NPM_CONFIG__AUTH: 'ENV-PW-15',
  DOCKER_AUTH_CONFIG: '{"auths":{"r":{"auth":"ENV-PW-16"}}}',
  GH_PAT: 'ENV-PW-17',
  SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/ENV-PW-18',
  MONGODB_URI: 'mongodb://u:ENV-PW-19@m/db',
  AWS_SESSION_CREDENTIALS: 'ENV-PW-20',
  OPENAI_ORG_AUTH: 'ENV-PW-21',
  OPENAI_API_KEY: 'ENV-PW-22',
  GITHUB_TOKEN: 'ENV-PW-23',
  PGPASSWORD: 'ENV-PW-24',
};

/** The credential files of X6, each with a marker. */
const CREDENTIALS: Record<string, string> = {
  '.ssh/id_ed25519': 'MARK-SSH',
  '.aws/credentials': 'MARK-AWS',
  '.netrc': 'MARK-NETRC',
  '.config/lich/config.json': '{"mcp_servers":{"gh":{"env":{"GITHUB_TOKEN":"MARK-LICH"}}}}',
  '.docker/config.json': 'MARK-DOCKER',
  '.config/gh/hosts.yml': 'MARK-GH',
  '.bash_history': 'MARK-HISTORY',
};

let base: string;
let home: string;
let work_dir: string;
const saved: Record<string, string | undefined> = {};

function executor(sandbox: Partial<SandboxConfig> = {}, dir = work_dir) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  registry.register(read_file_tool);
  return new ToolExecutor(registry, { work_dir: dir, sandbox });
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-secrets-')));
  home = join(base, 'home');
  work_dir = join(base, 'work');
  await mkdir(work_dir, { recursive: true });
  for (const [path, content] of Object.entries(CREDENTIALS)) {
    await mkdir(dirname(join(home, path)), { recursive: true });
    await writeFile(join(home, path), content);
  }
  for (const name of [...Object.keys(LEAKY_ENV), 'HOME', 'XDG_CONFIG_HOME']) {
    saved[name] = process.env[name];
  }
  Object.assign(process.env, LEAKY_ENV);
  process.env.HOME = home;
  delete process.env.XDG_CONFIG_HOME;
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(base, { recursive: true, force: true });
});

describe('the environment of commands (X5)', () => {
  it('holds none of the credentials, in any sandbox mode, and says how to pass one', async () => {
    for (const mode of ['auto', 'off'] as const) {
      const result = await executor({ mode }).execute('terminal', { command: 'env' });
      expect(result.ok).toBe(true);
      expect(result.output).toContain('PATH=');
      expect(result.output).not.toMatch(/ENV-PW/);
    }
    const asked = await executor().execute('terminal', { command: 'echo "[$DATABASE_URL]"' });
    expect(asked.output).toContain('[]');
    expect(asked.output).toMatch(
      /\[sandbox\] DATABASE_URL is not passed to commands.*sandbox\.env_passthrough/,
    );
  });

  it('passes what sandbox.env_passthrough names', async () => {
    const result = await executor({ env_passthrough: ['DATABASE_URL'] }).execute('terminal', {
      command: 'echo "[$DATABASE_URL] [$REDIS_URL]"',
    });
    expect(result.output).toContain(`[${LEAKY_ENV.DATABASE_URL}] []`);
  });
});

describe_gated([sandbox_gate()], 'credential stores under bubblewrap (X6)', () => {
  it('shows a sandboxed command none of them, and says which were masked', async () => {
    const files = Object.keys(CREDENTIALS)
      .map((path) => `~/${path}`)
      .join(' ');
    const result = await executor().execute('terminal', {
      command: `cat ${files} 2>&1; ls -a ~/.ssh`,
    });
    expect(result.sandbox).toBe('bwrap');
    expect(result.output).not.toMatch(/MARK-/);
    expect(result.output).toMatch(
      /\[sandbox\] .*~\/\.ssh.* masked from commands.*sandbox\.allow_read/,
    );
  });

  it('reads one again when sandbox.allow_read lists it, and only that one', async () => {
    const result = await executor({ allow_read: ['~/.netrc'] }).execute('terminal', {
      command: 'cat ~/.netrc ~/.aws/credentials 2>&1',
    });
    expect(result.output).toContain('MARK-NETRC');
    expect(result.output).not.toContain('MARK-AWS');
  });

  it('keeps the file tools out of the same paths, even with the home folder as work dir', async () => {
    const tools = executor({}, home);
    const refused = await tools.execute('read_file', { path: '.ssh/id_ed25519' });
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/masked|sandbox\.allow_read/);
    expect(refused.output).not.toContain('MARK-SSH');
    const in_home = await tools.execute('terminal', { command: 'cat .ssh/id_ed25519 .netrc 2>&1' });
    expect(in_home.output).not.toMatch(/MARK-/);
    const allowed = await executor({ allow_read: ['~/.ssh'] }, home).execute('read_file', {
      path: '.ssh/id_ed25519',
    });
    expect(allowed.output).toContain('MARK-SSH');
  });
});

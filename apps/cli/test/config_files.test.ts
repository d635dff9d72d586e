import { execFileSync } from 'node:child_process';
import { access, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, openai_env, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
let project_file: string;

beforeEach(async () => {
  sandbox = await make_sandbox();
  server = await start_openai_server();
  project_file = join(sandbox.work_dir, '.lich', 'config.json');
});

afterEach(async () => {
  await server.close();
  await sandbox.cleanup();
});

const run = (args: string[], env?: Record<string, string>) =>
  run_lich(args, { cwd: sandbox.work_dir, env: env ?? sandbox.env, timeout_ms: 10_000 });

async function write_project(text: string): Promise<void> {
  await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
  await writeFile(project_file, text);
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('lich config get, set and unset', () => {
  it('gets tools_enabled while it has its default: every builtin', async () => {
    const result = await run(['config', 'get', 'tools_enabled']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expect.arrayContaining(['read_file', 'terminal']));
  });

  it('unsets an unknown key as an error and a key not set as nothing, creating no file', async () => {
    const unknown = await run(['config', 'unset', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown key 'nosuch'/);
    expect(unknown.stderr).not.toMatch(/removed/);
    const unset = await run(['config', 'unset', 'max_turns']);
    expect(unset.code).toBe(0);
    expect(unset.stderr).toMatch(/max_turns is not set in .*; nothing changed/);
    expect(await exists(project_file)).toBe(false);
  });

  it('takes negative numbers as values, then refuses them', async () => {
    const flag = await run(['--max-turns', '-1', 'hi'], openai_env(sandbox, server.base_url));
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--max-turns expects a positive whole number, got '-1'/);
    const set = await run(['config', 'set', 'max_turns', '-5']);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/max_turns: too small/i);
    expect(await exists(project_file)).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});

describe('config files', () => {
  it('exits 2 naming the file and the key for a provider kind that does not exist', async () => {
    await write_project(JSON.stringify({ providers: [{ kind: 'openia', model: 'm' }] }));
    const result = await run(['hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${project_file}: providers.0.kind: unknown provider kind 'openia'`,
    );
    expect(result.stderr).toMatch(/did you mean 'openai'\?/);
  });

  it('says "is a folder" and "no such file" for --config, never EISDIR or ENOENT', async () => {
    const folder = await run(['--config', '.', 'config']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/is a folder, not a file/);
    const missing = await run(['--config', 'nowhere.json', 'config']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nowhere\.json: no such file/);
    expect(`${folder.stderr}${missing.stderr}`).not.toMatch(/EISDIR|ENOENT/);
  });

  it('accepts a byte order mark, comments and trailing commas', async () => {
    await write_project('\uFEFF{\n  // fewer turns\n  "max_turns": 7, /* why not */\n}\n');
    const result = await run(['config', 'get', 'max_turns']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('7\n');
  });

  it('refuses a config that is a device or a FIFO at once, with exit 2 naming the file', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'));
    await symlink('/dev/zero', project_file);
    const zero = await run(['config']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain(`${project_file}: is a device, not a regular file`);
    const user_file = join(sandbox.xdg, 'lich', 'config.json');
    await mkdir(join(sandbox.xdg, 'lich'));
    await symlink('/dev/urandom', user_file);
    const random = await run(['config', '--config', '/dev/urandom']);
    expect(random.code).toBe(2);
    expect(random.stderr).toMatch(/is a device, not a regular file/);
    const fifo = join(sandbox.work_dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const waited = await run(['--config', fifo, 'config']);
    expect(waited.code).toBe(2);
    expect(waited.stderr).toContain(`${user_file}: is a device`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a FIFO given with --config without waiting for a writer', async () => {
    const fifo = join(sandbox.work_dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const result = await run(['--config', fifo, 'config']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${fifo}: is a FIFO, not a regular file`);
  });

  it('exits 2 naming the file for a config nested 10,000 deep', async () => {
    await write_project(`{"plugins": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`);
    const result = await run(['config']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${project_file}: nested 10001 levels deep`);
    expect(result.stderr).not.toMatch(/call stack/);
  });

  it('refuses file:, ftp:, gopher:, javascript: and data: base URLs at once, without retrying', async () => {
    for (const base_url of [
      'file:///etc/passwd',
      'ftp://127.0.0.1/',
      'gopher://127.0.0.1/',
      'javascript:alert(1)',
      'data:text/plain,hi',
    ]) {
      await write_project(
        JSON.stringify({ providers: [{ kind: 'openai_compat', model: 'm', base_url }] }),
      );
      const from_file = await run(['hi']);
      expect(from_file.code, base_url).toBe(2);
      expect(from_file.stderr, base_url).toContain(
        `${project_file}: providers.0.base_url: expected an http:// or https:// URL`,
      );
      expect(from_file.stderr, base_url).not.toMatch(/retry/);
    }
    await write_project('{}');
    const from_flag = await run(['--base-url', 'file:///tmp', '--model', 'm', 'hi']);
    expect(from_flag.code).toBe(2);
    expect(from_flag.stderr).toMatch(/flag .*--base-url: providers\.0\.base_url: expected an http/);
  });

  it('redacts credential-like headers and URL passwords in lich config', async () => {
    await write_project(
      JSON.stringify({
        providers: [
          {
            kind: 'openai_compat',
            model: 'm',
            base_url: 'http://127.0.0.1:9/v1',
            headers: { 'Ocp-Apim-Subscription-Key': 'azure-secret-1', 'X-Auth': 'xauth-secret-2' },
          },
        ],
        mcp_servers: {
          db: { command: 'db-mcp', env: { DATABASE_URL: 'postgres://app:hunter2pw@db:5432/x' } },
        },
      }),
    );
    for (const args of [['config'], ['config', '--json']]) {
      const result = await run(args);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toMatch(/azure-secret-1|xauth-secret-2|hunter2pw/);
    }
    const json = JSON.parse((await run(['config', '--json'])).stdout);
    expect(json.config.mcp_servers.db.env.DATABASE_URL).toBe('postgres://app:[redacted]@db:5432/x');
  });
});

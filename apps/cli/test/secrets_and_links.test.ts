/**
 * Findings X11 and X12 with the built `lich`: a provider error that quotes the configured key
 * is printed and recorded without it; transcripts never follow a `.lich` (or `.lich/sessions`)
 * that a repository ships as a link to a folder outside the work dir.
 */
import { mkdir, readdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type FakeServer, start_openai_server } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
let backup: FakeServer;

const KEY = 'sk-SECRETKEY-0123';
const HEADER = 'HDR-0123-token';

/** Every file under `dir`, with its text. */
async function files_of(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path] = await readFile(path, 'utf8');
  }
  return out;
}

beforeEach(async () => {
  server = await start_openai_server();
  backup = await start_openai_server();
  sandbox = await make_sandbox();
});

afterEach(async () => {
  await server.close();
  await backup.close();
  await sandbox.cleanup();
});

describe('configured secrets in provider errors (X11)', () => {
  it('are neither printed nor recorded, on a failure and on a failover', async () => {
    await mkdir(join(sandbox.work_dir, '.lich'), { recursive: true });
    const config = {
      providers: [
        {
          kind: 'openai_compat',
          model: 'fake-model',
          base_url: server.base_url,
          api_key_env: 'SEC_KEY',
          headers: { 'X-Api-Token': HEADER },
        },
        { kind: 'openai_compat', model: 'backup-model', base_url: backup.base_url },
      ],
    };
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(sandbox.work_dir, '.lich', 'config.json'), JSON.stringify(config));
    const quoting = `Incorrect API key provided: ${KEY}; header ${HEADER}`;
    server.enqueue({ kind: 'status', status: 401, message: quoting });
    backup.enqueue({ kind: 'status', status: 401, message: `backup says ${KEY}` });
    const env = { ...sandbox.env, SEC_KEY: KEY, LICH_DEBUG: '1' };
    const result = await run_lich(['--output-format', 'stream-json', 'hello'], {
      cwd: sandbox.work_dir,
      env,
    });
    expect(result.code).toBe(1);
    // the failure is still there to read, without the secrets
    expect(`${result.stdout}${result.stderr}`).toMatch(/Incorrect API key provided: \[redacted\]/);
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(HEADER);
    }
    const recorded = Object.values(await files_of(join(sandbox.work_dir, '.lich', 'sessions')));
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.join('\n')).toMatch(/\[redacted\]/);
    for (const text of recorded) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(HEADER);
    }
  });
});

describe('a session dir through a link (X12)', () => {
  it('writes no transcript outside the work dir through a linked .lich', async () => {
    const outside = join(sandbox.temp.path, 'outside');
    await mkdir(outside);
    await symlink(outside, join(sandbox.work_dir, '.lich'));
    server.enqueue({ text: 'answer' });
    const result = await run_lich(['hello'], {
      cwd: sandbox.work_dir,
      env: { ...sandbox.env, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: server.base_url },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('answer\n');
    expect(result.stderr).toMatch(/not recorded: .*outside .*through a link/);
    expect(await files_of(outside)).toEqual({});
  });

  it('nor through a linked .lich/sessions', async () => {
    const outside = join(sandbox.temp.path, 'outside');
    await mkdir(outside);
    await mkdir(join(sandbox.work_dir, '.lich'));
    await symlink(outside, join(sandbox.work_dir, '.lich', 'sessions'));
    server.enqueue({ text: 'answer' });
    const result = await run_lich(['hello'], {
      cwd: sandbox.work_dir,
      env: { ...sandbox.env, OPENAI_API_KEY: 'sk-fake', OPENAI_BASE_URL: server.base_url },
    });
    expect(result.stdout).toBe('answer\n');
    expect(await files_of(outside)).toEqual({});
  });

  it('writes there when the session dir is set explicitly', async () => {
    const outside = join(sandbox.temp.path, 'outside');
    await mkdir(outside);
    await symlink(outside, join(sandbox.work_dir, '.lich'));
    server.enqueue({ text: 'answer' });
    const result = await run_lich(['hello'], {
      cwd: sandbox.work_dir,
      env: {
        ...sandbox.env,
        OPENAI_API_KEY: 'sk-fake',
        OPENAI_BASE_URL: server.base_url,
        LICH_SESSION_DIR: '.lich/transcripts',
      },
    });
    expect(result.stdout).toBe('answer\n');
    expect(Object.keys(await files_of(outside)).length).toBeGreaterThan(0);
  });
});

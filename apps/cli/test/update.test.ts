import { chmod, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compare_versions } from '../src/update_check.js';
import { make_sandbox, run_lich, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
let registry: Server;
let registry_url: string;
let latest = '99.0.0';
const asked: string[] = [];

beforeEach(async () => {
  sandbox = await make_sandbox();
  asked.length = 0;
  registry = createServer((request, response) => {
    asked.push(request.url ?? '');
    if (request.url?.toLowerCase() !== '/@lich%2fcli') {
      response.writeHead(404).end('{}');
      return;
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ name: '@lich/cli', 'dist-tags': { latest } }));
  });
  await new Promise<void>((done) => registry.listen(0, '127.0.0.1', done));
  registry_url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise((done) => registry.close(done));
  await sandbox.cleanup();
});

describe('compare_versions', () => {
  it('orders versions and prereleases', () => {
    expect(compare_versions('1.2.3', '1.2.3')).toBe(0);
    expect(compare_versions('1.10.0', '1.9.9')).toBeGreaterThan(0);
    expect(compare_versions('1.0.0-beta.1', '1.0.0')).toBeLessThan(0);
    expect(compare_versions('v2.0.0', '1.99.99')).toBeGreaterThan(0);
  });
});

describe('lich update', () => {
  it('says to git pull when it runs from a git clone', async () => {
    const result = await run_lich(['update'], {
      cwd: sandbox.work_dir,
      env: { ...sandbox.env, LICH_NPM_REGISTRY: registry_url },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/runs from a git clone .*\n\s+git -C .* pull/);
    expect(asked).toEqual([]);
  });

  it('asks the registry and installs a newer version globally with npm', async () => {
    const npm_log = join(sandbox.temp.path, 'npm.log');
    const fake_npm = join(sandbox.temp.path, 'fake-npm.mjs');
    await writeFile(
      fake_npm,
      `#!${process.execPath}\nimport { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(npm_log)}, process.argv.slice(2).join(' '));\n`,
    );
    await chmod(fake_npm, 0o755);
    const env = {
      ...sandbox.env,
      LICH_NPM_REGISTRY: registry_url,
      LICH_UPDATE_PACKAGE_DIR: join(sandbox.temp.path, 'node_modules', '@lich', 'cli'),
      LICH_NPM: fake_npm,
    };
    latest = '99.0.0';
    const result = await run_lich(['update'], { cwd: sandbox.work_dir, env });
    expect(result.stderr).toBe(
      `${fake_npm} install -g @lich/cli@99.0.0 --registry ${registry_url}\n`,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/lich 99\.0\.0 is available[\s\S]*updated lich to 99\.0\.0/);
    expect(await readFile(npm_log, 'utf8')).toBe(
      `install -g @lich/cli@99.0.0 --registry ${registry_url}`,
    );
    latest = '0.0.1';
    const current = await run_lich(['update'], { cwd: sandbox.work_dir, env });
    expect(current.code).toBe(0);
    expect(current.stdout).toMatch(/is the latest version/);
  });

  it('fails with exit 1 when the registry cannot be reached', async () => {
    const result = await run_lich(['update'], {
      cwd: sandbox.work_dir,
      env: {
        ...sandbox.env,
        LICH_NPM_REGISTRY: 'http://127.0.0.1:9',
        LICH_UPDATE_PACKAGE_DIR: join(sandbox.temp.path, 'node_modules', '@lich', 'cli'),
      },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:9/);
  });
});

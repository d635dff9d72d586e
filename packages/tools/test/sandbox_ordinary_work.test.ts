/**
 * What the sandbox must not get in the way of: a user's ordinary work. `npm test`, `git status`
 * and `git diff`, a Python script, and `npm install` through the allow-list proxy, from a fake
 * registry on a loopback address of this machine (no test needs the internet).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { terminal_tool } from '../src/shell/terminal.js';
import { run_tests_tool } from '../src/tests/run_tests.js';

let base: string;
let work_dir: string;
let registry_server: Server;
let registry_url: string;
let registry_host: string;
const requests: string[] = [];

function tools(sandbox: Partial<SandboxConfig> = {}) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  registry.register(run_tests_tool);
  return new ToolExecutor(registry, { work_dir, sandbox });
}

/** A package tarball made with `npm pack`, outside any sandbox. */
async function packed_fixture(): Promise<Buffer> {
  const source = join(base, 'fixture-pkg');
  await mkdir(source);
  await writeFile(
    join(source, 'package.json'),
    JSON.stringify({ name: 'lich-fixture-pkg', version: '1.0.0', main: 'index.js' }),
  );
  await writeFile(join(source, 'index.js'), "module.exports = 'fixture ok';\n");
  const name = execFileSync('npm', ['pack', '--silent'], { cwd: source, encoding: 'utf8' }).trim();
  return readFile(join(source, name.split('\n').at(-1)!));
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-ordinary-')));
  work_dir = join(base, 'app');
  await mkdir(work_dir);
  const tarball = await packed_fixture();
  // 127.0.0.2 is this machine's loopback too, and not in the sandbox's NO_PROXY: npm goes
  // through the allow-list proxy to reach it, as it would to registry.npmjs.org
  registry_server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    if (request.url === '/lich-fixture-pkg') {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          name: 'lich-fixture-pkg',
          'dist-tags': { latest: '1.0.0' },
          versions: {
            '1.0.0': {
              name: 'lich-fixture-pkg',
              version: '1.0.0',
              dist: {
                tarball: `${registry_url}lich-fixture-pkg/-/lich-fixture-pkg-1.0.0.tgz`,
                shasum: createHash('sha1').update(tarball).digest('hex'),
                integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
              },
            },
          },
        }),
      );
    } else if (request.url?.endsWith('.tgz')) {
      response.end(tarball);
    } else {
      response.statusCode = 404;
      response.end('{}');
    }
  });
  await new Promise<void>((done) => registry_server.listen(0, '127.0.0.2', done));
  const { port } = registry_server.address() as AddressInfo;
  registry_host = `127.0.0.2:${port}`;
  registry_url = `http://${registry_host}/`;

  await writeFile(
    join(work_dir, 'package.json'),
    JSON.stringify({
      name: 'app',
      version: '1.0.0',
      private: true,
      scripts: { test: 'node --test' },
    }),
  );
  await writeFile(
    join(work_dir, 'sum.test.mjs'),
    "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.strictEqual(1 + 1, 2));\n",
  );
  await writeFile(
    join(work_dir, 'script.py'),
    'import json, os, subprocess, tempfile\nwith tempfile.NamedTemporaryFile("w", delete=False) as f:\n    f.write("x")\nprint(json.dumps({"ok": True, "files": len(os.listdir("."))}))\n',
  );
  execFileSync('git', ['init', '--quiet'], { cwd: work_dir });
  execFileSync('git', ['add', '-A'], { cwd: work_dir });
  execFileSync(
    'git',
    ['-c', 'user.name=a', '-c', 'user.email=a@b.c', 'commit', '--quiet', '-m', 'init'],
    { cwd: work_dir },
  );
});

afterAll(async () => {
  await new Promise((done) => registry_server.close(done));
  await rm(base, { recursive: true, force: true });
});

describe_gated([sandbox_gate()], "a user's ordinary work in the sandbox", () => {
  it('runs npm test, through terminal and run_tests', async () => {
    const terminal = await tools().execute('terminal', { command: 'npm test 2>&1 | tail -12' });
    expect(terminal.sandbox).toBe('bwrap');
    expect(terminal.output).toMatch(/pass 1/);
    const tests = await tools().execute('run_tests', {});
    expect(tests.ok).toBe(true);
    expect(tests.output).toMatch(/^Tests passed: 0 failed, 1 passed/);
  });

  it('runs git status and git diff', async () => {
    await writeFile(join(work_dir, 'sum.test.mjs'), '// changed\n', { flag: 'a' });
    const result = await tools().execute('terminal', {
      command: 'git status --short && git diff --stat',
    });
    expect(result.ok).toBe(true);
    expect(result.output).toContain(' M sum.test.mjs');
    expect(result.output).toMatch(/1 file changed, 1 insertion/);
  });

  it('runs a Python script', async () => {
    const result = await tools().execute('terminal', { command: 'python3 script.py' });
    expect(result.ok).toBe(true);
    expect(result.output).toMatch(/\{"ok": true, "files": \d+\}/);
  });

  it('installs a package with npm through the allow-list proxy, and nothing else', async () => {
    const result = await tools({ network: [registry_host] }).execute('terminal', {
      command: `npm install --no-audit --no-fund --registry ${registry_url} lich-fixture-pkg && node -e "console.log(require('lich-fixture-pkg'))"`,
    });
    expect(result.output).toContain('added 1 package');
    expect(result.output).toContain('fixture ok');
    expect(result.ok).toBe(true);
    expect(requests).toContain('GET /lich-fixture-pkg');
    const refused = await tools({ network: [registry_host] }).execute('terminal', {
      command: 'curl -s -m 5 -o /dev/null -w "%{http_code}\\n" http://example.com/',
    });
    expect(refused.output).toMatch(/^403/);
    expect(refused.output).toMatch(/\[sandbox\] The sandbox proxy refused example\.com/);
  });
});

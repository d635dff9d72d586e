import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe_gated, sandbox_gate } from '@lich/testkit/gates';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import { Sandbox } from '../src/sandbox/sandbox.js';
import type { SandboxConfig } from '../src/sandbox/sandbox_config.js';
import { probe_sandbox } from '../src/sandbox/sandbox_support.js';
import { terminal_tool } from '../src/shell/terminal.js';
import { run_tests_tool } from '../src/tests/run_tests.js';
import { process_gone, wait_for } from './proc_helpers.js';

let base: string;
let work_dir: string;
let server: Server;
let port: number;

function executor(sandbox: Partial<SandboxConfig> | Sandbox = {}, dir = work_dir) {
  const registry = new ToolRegistry();
  registry.register(terminal_tool);
  registry.register(run_tests_tool);
  return new ToolExecutor(registry, { work_dir: dir, sandbox });
}

const terminal = (command: string, sandbox: Partial<SandboxConfig> | Sandbox = {}) =>
  executor(sandbox).execute('terminal', { command });

/** Host pids of live `sleep` processes whose length starts with `token` (unique per test). */
function pids_with(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const [program, length] = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      const sleeping = program === 'sleep' && length?.startsWith(token);
      if (sleeping && !process_gone(Number(name))) found.push(Number(name));
    } catch {
      // gone while listed
    }
  }
  return found;
}

/** A GET in absolute form through the proxy named by `HTTP_PROXY`: prints the status and body. */
const node_proxy_get = (url: string) =>
  `${JSON.stringify(process.execPath)} -e "const p = new URL(process.env.HTTP_PROXY); require('http').get({ host: p.hostname, port: p.port, path: '${url}' }, (r) => { let b = ''; r.on('data', (c) => b += c); r.on('end', () => { console.log('status', r.statusCode, b.trim()); process.exit(0); }); }).on('error', (e) => { console.log('failed', e.code); process.exit(3); })"`;

/** A CONNECT tunnel through `HTTPS_PROXY`, then a GET inside it: prints the raw answer. */
const node_proxy_connect = (target: string) =>
  `${JSON.stringify(process.execPath)} -e "const p = new URL(process.env.HTTPS_PROXY); const q = require('http').request({ host: p.hostname, port: p.port, method: 'CONNECT', path: '${target}' }); q.on('connect', (r, s) => { let b = ''; s.on('data', (c) => b += c); s.on('end', () => { console.log(b.trim()); process.exit(0); }); s.write('GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'); }); q.on('error', (e) => { console.log('failed', e.code); process.exit(3); }); q.end();"`;

/** The built package (the test suite's global setup builds it), for a child playing Lich. */
const TOOLS_DIST = resolve(import.meta.dirname, '..', 'dist', 'index.js');

/** Runs a node script to its end with extra variables in its environment. */
function run_node(script: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string }> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [script], { env: { ...process.env, ...env } }, (error, stdout) =>
      error ? fail(error) : done({ stdout }),
    );
  });
}

const node_get = (url: string) =>
  `${JSON.stringify(process.execPath)} -e "require('http').get('${url}', (r) => { console.log('status', r.statusCode); process.exit(0); }).on('error', (e) => { console.log('failed', e.code); process.exit(3); })"`;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-sandbox-test-')));
  work_dir = join(base, 'work');
  await mkdir(join(work_dir, '.git', 'hooks'), { recursive: true });
  await writeFile(join(work_dir, '.git', 'config'), '[core]\n');
  await writeFile(join(work_dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  server = createServer((_request, response) => response.end('hello'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  // a test that failed (e.g. no bubblewrap here) can leave its sleeps behind: end them
  for (const token of ['91.', '92.', '93.', '94.']) {
    for (const pid of pids_with(token)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  await new Promise((done) => server.close(done));
  await rm(base, { recursive: true, force: true });
});

describe_gated([sandbox_gate()], 'terminal under bubblewrap', () => {
  it('has bubblewrap working on this machine (CI installs it)', async () => {
    const support = await probe_sandbox();
    expect(support.reason).toMatch(/^bubblewrap|^bwrap/);
    expect(support.kind).toBe('bwrap');
  });

  it('refuses a write outside the work dir, leaves nothing there, and says how to allow it', async () => {
    const outside = join(tmpdir(), `lich-outside-${process.pid}-${Date.now()}`);
    const result = await terminal(`echo x > ${outside}; echo inside > inside.txt; echo done`);
    expect(result.sandbox).toBe('bwrap');
    expect(result.output).toMatch(/Read-only file system/);
    expect(result.output).toMatch(/\n\[sandbox\] The sandbox refused a write outside the work dir/);
    expect(result.output).toMatch(/sandbox\.writable/);
    expect(existsSync(outside)).toBe(false);
    expect(await readFile(join(work_dir, 'inside.txt'), 'utf8')).toBe('inside\n');
  });

  it('keeps a private temp dir writable and gone afterwards', async () => {
    const result = await terminal('echo $TMPDIR; echo t > "$TMPDIR/t"; cat "$TMPDIR/t"');
    expect(result.ok).toBe(true);
    const [temp_dir, content] = result.output.split('\n');
    expect(content).toBe('t');
    expect(temp_dir).toMatch(/lich-sandbox-/);
    expect(existsSync(temp_dir!)).toBe(false);
  });

  it('makes writable only the folders sandbox.writable adds', async () => {
    const extra = join(base, 'extra');
    await mkdir(extra);
    const allowed = await terminal(`echo ok > ${extra}/f`, { writable: [extra] });
    expect(allowed.ok).toBe(true);
    expect(await readFile(join(extra, 'f'), 'utf8')).toBe('ok\n');
    const relative = await terminal('echo again > ../extra/g', { writable: ['../extra'] });
    expect(relative.ok).toBe(true);
    expect((await terminal(`echo no > ${extra}/h`)).ok).toBe(false);
  });

  it('keeps .git/hooks, .git/config and .lich read-only, and .git in place', async () => {
    const attempts = [
      'echo evil > .git/hooks/pre-commit',
      'echo "[core] hooksPath = /tmp" >> .git/config',
      'echo x > .lich/config.json',
      'mv .git .git-moved',
      'mv .lich .lich-moved',
      'rm -rf .git/hooks',
    ];
    for (const command of attempts) {
      const result = await terminal(command);
      expect(result.ok, command).toBe(false);
    }
    expect(existsSync(join(work_dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(join(work_dir, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(work_dir, '.lich', 'config.json'))).toBe(false);
    expect(existsSync(join(work_dir, '.git-moved'))).toBe(false);
    // the rest of .git stays writable: git itself works
    expect((await terminal('echo ref: refs/heads/other > .git/HEAD')).ok).toBe(true);
  });

  it('cuts the network unless sandbox.network allows it', async () => {
    const url = `http://127.0.0.1:${port}/`;
    const off = await terminal(node_get(url));
    expect(off.ok).toBe(false);
    expect(off.output).toMatch(/failed ECONNREFUSED/);
    expect(off.output).toMatch(/\[sandbox\] The network is off for commands/);
    const on = await terminal(node_get(url), { network: true });
    expect(on.output).toMatch(/^status 200\n\[exit code 0\]$/);
  });

  it('lets commands reach only the listed hosts, through the proxy in HTTP_PROXY', async () => {
    const allow = { network: ['127.0.0.1'] };
    const through = await terminal(node_proxy_get(`http://127.0.0.1:${port}/x`), allow);
    expect(through.output).toMatch(/^status 200 hello\n\[exit code 0\]$/);
    const tunnel = await terminal(node_proxy_connect(`127.0.0.1:${port}`), allow);
    expect(tunnel.output).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(tunnel.output).toMatch(/hello\n\[exit code 0\]$/);
    const refused = await terminal(node_proxy_get(`http://localhost:${port}/`), allow);
    expect(refused.output).toMatch(/^status 403 Refused by the Lich sandbox: localhost:\d+/);
    expect(refused.output).toMatch(
      /\n\[sandbox\] The sandbox proxy refused localhost: not in sandbox\.network/,
    );
    // around the proxy there is still no network
    const direct = await terminal(node_get(`http://127.0.0.1:${port}/`), allow);
    expect(direct.output).toMatch(/failed ECONNREFUSED/);
    expect(direct.output).toMatch(
      /\[sandbox\] Commands reach only 127\.0\.0\.1, through the proxy/,
    );
  });

  it('kills the whole tree on timeout', async () => {
    const command =
      'sleep 91.1 & bash -c "sleep 91.2 & sleep 91.3; wait" & echo waiting; sleep 91.4';
    const running = executor().execute('terminal', { command, timeout_ms: 1_000 });
    expect(await wait_for(() => pids_with('91.').length >= 4, 5_000)).toBe(true);
    const result = await running;
    expect(result.output).toMatch(/timed out after 1000 ms; the process tree was killed/);
    expect(result.duration_ms).toBeLessThan(4_000);
    expect(pids_with('91.')).toEqual([]);
  });

  it('kills the whole tree on abort', async () => {
    const controller = new AbortController();
    const running = executor().execute(
      'terminal',
      { command: '(sleep 92.1; echo never) & sleep 92.2' },
      { signal: controller.signal },
    );
    expect(await wait_for(() => pids_with('92.').length >= 2, 5_000)).toBe(true);
    controller.abort();
    const result = await running;
    expect(result.error).toBe('aborted');
    expect(pids_with('92.')).toEqual([]);
  });

  it('ends detached processes (setsid, nohup) with the command', async () => {
    const result = await terminal(
      '(setsid nohup sleep 93.1 > /dev/null 2>&1 &); setsid -f sleep 93.2; sleep 0.2; echo started',
    );
    expect(result.output).toMatch(/^started\n\[exit code 0\]/);
    expect(result.duration_ms).toBeLessThan(3_000);
    expect(await wait_for(() => pids_with('93.').length === 0, 3_000)).toBe(true);
  });

  it("shows a /proc without Lich's process, so no parent's environment", async () => {
    // a Lich-like parent whose own environment (as started) holds a secret the child env drops
    const script = join(base, 'planted_parent.mjs');
    await writeFile(
      script,
      [
        `import { ToolExecutor, ToolRegistry, terminal_tool } from ${JSON.stringify(TOOLS_DIST)};`,
        'const registry = new ToolRegistry();',
        'registry.register(terminal_tool);',
        'const command = \'grep -l planted-value-4711 /proc/[0-9]*/environ 2>/dev/null | wc -l; ls /proc | grep -c "^[0-9]"\';',
        'const run = async (mode) => (await new ToolExecutor(registry, {',
        `  work_dir: ${JSON.stringify(work_dir)}, sandbox: { mode } }).execute('terminal', { command })).output;`,
        "console.log(JSON.stringify({ sandboxed: await run('auto'), plain: await run('off') }));",
      ].join('\n'),
    );
    const { stdout } = await run_node(script, { LICH_TEST_PLANTED_TOKEN: 'planted-value-4711' });
    const { sandboxed, plain } = JSON.parse(stdout) as { sandboxed: string; plain: string };
    const [found, visible] = sandboxed.split('\n').map(Number);
    expect(found).toBe(0);
    expect(visible).toBeLessThan(10);
    // unsandboxed, the same command reads the secret from the parent's environ
    expect(Number(plain.split('\n')[0])).toBeGreaterThan(0);
  });

  it('runs a node:test project with run_tests inside the sandbox', async () => {
    const project = join(work_dir, 'project');
    await mkdir(join(project, 'test'), { recursive: true });
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'p', private: true, scripts: { test: 'node --test' } }),
    );
    await writeFile(
      join(project, 'test', 'a.test.js'),
      [
        "const test = require('node:test');",
        "const assert = require('node:assert');",
        "const { writeFileSync } = require('node:fs');",
        "const { join } = require('node:path');",
        "const { tmpdir } = require('node:os');",
        "test('adds', () => assert.strictEqual(1 + 1, 2));",
        "test('writes its temp dir', () => writeFileSync(join(tmpdir(), 'x'), 'x'));",
      ].join('\n'),
    );
    const result = await executor({}, project).execute('run_tests', {});
    expect(result.output).toMatch(/^Tests passed: 0 failed, 2 passed/);
    expect(result.sandbox).toBe('bwrap');
  });

  it('cannot be turned off by a hook: a command allowed always still runs sandboxed', async () => {
    const sandboxed = executor();
    sandboxed.add_hooks({
      before_tool_call(_name, _args, context) {
        context.sandbox = new Sandbox({ mode: 'off' });
      },
    });
    const result = await sandboxed.execute('terminal', { command: 'true' });
    expect(result.sandbox).toBe('bwrap');
  });

  it('kills what a command started when Lich itself is killed', async () => {
    const script = join(base, 'killed_parent.mjs');
    await writeFile(
      script,
      [
        `import { ToolExecutor, ToolRegistry, terminal_tool } from ${JSON.stringify(TOOLS_DIST)};`,
        'const registry = new ToolRegistry();',
        'registry.register(terminal_tool);',
        `const executor = new ToolExecutor(registry, { work_dir: ${JSON.stringify(work_dir)} });`,
        "await executor.execute('terminal', { command: '(setsid sleep 94.1 &); sleep 94.2' });",
      ].join('\n'),
    );
    // a killed process cannot remove its sandbox's temp dir: keep it inside `base`, not in /tmp
    const temp = join(base, 'killed_parent_tmp');
    await mkdir(temp);
    const child = spawn(process.execPath, [script], {
      stdio: 'ignore',
      env: { ...process.env, TMPDIR: temp },
    });
    expect(await wait_for(() => pids_with('94.').length >= 2, 10_000)).toBe(true);
    child.kill('SIGKILL');
    expect(await wait_for(() => pids_with('94.').length === 0, 5_000)).toBe(true);
  });
});

describe('terminal where no sandbox can start', () => {
  let bin: string;
  let saved_path: string | undefined;

  beforeAll(async () => {
    // a PATH with bash and a few tools but no bwrap: what a machine without bubblewrap looks like
    bin = join(base, 'bin-without-bwrap');
    await mkdir(bin);
    for (const name of ['bash', 'touch', 'cat']) {
      const found = ['/usr/bin', '/bin'].map((dir) => join(dir, name)).find(existsSync);
      if (found) await symlink(found, join(bin, name));
    }
    saved_path = process.env.PATH;
    process.env.PATH = bin;
  });

  afterAll(() => {
    process.env.PATH = saved_path;
  });

  it('runs unsandboxed with one warning per session in auto mode', async () => {
    const session = executor({ mode: 'auto' });
    const first = await session.execute('terminal', { command: 'echo one' });
    expect(first.ok).toBe(true);
    expect(first.sandbox).toBe('none');
    expect(first.output).toMatch(
      /^one\n\[exit code 0\]\n\[sandbox\] Commands run without a sandbox/,
    );
    const second = await session.execute('terminal', { command: 'echo two' });
    expect(second.output).toBe('two\n[exit code 0]');
  });

  it('refuses to run anything in required mode', async () => {
    const result = await terminal('touch required-ran', { mode: 'required' });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/^Refused: sandbox\.mode is 'required' and no sandbox can start/);
    expect(existsSync(join(work_dir, 'required-ran'))).toBe(false);
  });
});

import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { ToolRegistry } from '../src/registry.js';
import { run_project_tests, run_tests_tool } from '../src/tests/run_tests.js';

let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'lich-run-tests-')));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const PASSING = `import test from 'node:test';
test('adds', () => {});
test('later', { skip: true }, () => {});
`;
const FAILING = `import test from 'node:test';
import assert from 'node:assert';
test('breaks', () => { assert.strictEqual(1 + 1, 3, 'arithmetic is off'); });
`;

async function node_project(files: { [name: string]: string }): Promise<void> {
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'fixture', private: true, scripts: { test: 'node --test' } }),
  );
  await writeFile(join(dir, 'package-lock.json'), '{"lockfileVersion":3}');
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
}

describe('run_tests', () => {
  it('runs package.json scripts.test with npm and reports the counts of a passing run', async () => {
    await node_project({ 'a.test.mjs': PASSING });
    const report = await run_project_tests({ work_dir: dir });
    expect(report.ok).toBe(true);
    expect(report.command).toMatchObject({ command: 'npm test', kind: 'package_json' });
    expect(report.counts).toEqual({ passed: 1, failed: 0, skipped: 1, runner: 'node --test' });
    expect(report.output).toMatch(/^Tests passed: 0 failed, 1 passed, 1 skipped \(node --test\)/);
    expect(report.output).toContain('Command: npm test (package.json scripts.test (node --test)');
    expect(report.output).toContain('[exit code 0]');
  });

  it('reports the failures and ok: false when a test fails', async () => {
    await node_project({ 'a.test.mjs': PASSING, 'b.test.mjs': FAILING });
    const report = await run_project_tests({ work_dir: dir });
    expect(report.ok).toBe(false);
    expect(report.exit_code).not.toBe(0);
    expect(report.counts).toMatchObject({ passed: 1, failed: 1 });
    expect(report.output).toMatch(/^Tests failed: 1 failed, 1 passed/);
    expect(report.output).toContain('Failing output:\nnot ok');
    expect(report.output).toContain('arithmetic is off');
    expect(report.error).toMatch(/^tests failed: exit code/);
  });

  it('runs a Makefile test target with make', async () => {
    await writeFile(join(dir, 'Makefile'), 'test:\n\t@echo "====== 3 passed in 0.01s ======"\n');
    const report = await run_project_tests({ work_dir: dir });
    expect(report).toMatchObject({ ok: true, command: { command: 'make test', kind: 'make' } });
    expect(report.counts).toEqual({ passed: 3, failed: 0, skipped: 0, runner: 'pytest' });
  });

  it('runs an explicit command instead of the detected one', async () => {
    await writeFile(join(dir, 'a.test.mjs'), FAILING);
    const report = await run_project_tests({ work_dir: dir, command: 'node --test a.test.mjs' });
    expect(report.command).toEqual({
      command: 'node --test a.test.mjs',
      kind: 'explicit',
      reason: 'given',
    });
    expect(report.ok).toBe(false);
    expect(report.counts?.failed).toBe(1);
  });

  it('says what it looked for when no test command is found', async () => {
    const report = await run_project_tests({ work_dir: dir });
    expect(report.ok).toBe(false);
    expect(report.error).toBe('no test command found');
    expect(report.output).toMatch(/No test command found .* package\.json scripts\.test/);
    expect(report.output).toContain('Pass `command`');
  });

  it('refuses a hardline command and reports a timeout', async () => {
    const refused = await run_project_tests({ work_dir: dir, command: 'rm -rf ~' });
    expect(refused).toMatchObject({ ok: false, error: 'hardline: rm_root' });
    const slow = await run_project_tests({ work_dir: dir, command: 'sleep 100', timeout_ms: 300 });
    expect(slow.ok).toBe(false);
    expect(slow.timed_out).toBe(true);
    expect(slow.output).toContain('timed out after 300 ms; the process tree was killed');
  });

  it('is the run_tests builtin with a 600 s limit, run through the executor', async () => {
    expect(run_tests_tool.timeout_ms).toBe(600_000);
    await node_project({ 'a.test.mjs': PASSING });
    const registry = new ToolRegistry();
    registry.register(run_tests_tool);
    const executor = new ToolExecutor(registry, { work_dir: dir });
    const passed = await executor.execute('run_tests', {});
    expect(passed.ok).toBe(true);
    expect(passed.output).toMatch(/^Tests passed/);

    const controller = new AbortController();
    const running = executor.execute(
      'run_tests',
      { command: 'sleep 100' },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    const aborted = await running;
    expect(aborted).toMatchObject({ ok: false, error: 'aborted' });
    expect(aborted.duration_ms).toBeLessThan(3_000);
  });
});

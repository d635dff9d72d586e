import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detect_test_command } from './test_detect.js';

let root: string;
let dir: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'lich-detect-'));
  // a repository root, so the lockfile search stops here and not in the machine's tmp
  await mkdir(join(root, '.git'));
  dir = join(root, 'project');
  await mkdir(dir);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(files: { [path: string]: string }, base = dir): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(base, path)), { recursive: true });
    await writeFile(join(base, path), text);
  }
}

const manifest = (test: string, extra: object = {}) =>
  JSON.stringify({ name: 'x', scripts: { test }, ...extra });

describe('detect_test_command', () => {
  it.each([
    ['pnpm-lock.yaml', 'pnpm test'],
    ['yarn.lock', 'yarn test'],
    ['bun.lockb', 'bun run test'],
    ['bun.lock', 'bun run test'],
    ['package-lock.json', 'npm test'],
  ])('package.json with %s runs %s', async (lockfile, command) => {
    await put({ 'package.json': manifest('vitest run'), [lockfile]: '' });
    expect(await detect_test_command(dir)).toMatchObject({ command, kind: 'package_json' });
  });

  it('uses npm without a lockfile, and the packageManager field before lockfiles', async () => {
    await put({ 'package.json': manifest('node --test') });
    const plain = await detect_test_command(dir);
    expect(plain).toMatchObject({ command: 'npm test', kind: 'package_json' });
    expect(plain?.reason).toContain('node --test');
    await put({
      'package.json': manifest('node --test', { packageManager: 'yarn@4.1.0' }),
      'package-lock.json': '{}',
    });
    expect((await detect_test_command(dir))?.command).toBe('yarn test');
  });

  it('finds the lockfile of the workspace root above the work dir', async () => {
    await put({ 'pnpm-lock.yaml': '' }, root);
    await put({ 'package.json': manifest('vitest run') });
    const found = await detect_test_command(dir);
    expect(found?.command).toBe('pnpm test');
    expect(found?.reason).toContain(join(root, 'pnpm-lock.yaml'));
  });

  it('ignores the npm init placeholder and a package.json without a test script', async () => {
    await put({ 'package.json': manifest('echo "Error: no test specified" && exit 1') });
    expect(await detect_test_command(dir)).toBeUndefined();
    await put({ 'package.json': '{"name":"x"}', 'go.mod': 'module example.com/m\n' });
    expect(await detect_test_command(dir)).toMatchObject({ command: 'go test ./...' });
    await put({ 'package.json': '{ not json' });
    expect((await detect_test_command(dir))?.kind).toBe('go');
  });

  it('finds a Makefile test target, not a variable named test', async () => {
    await put({ Makefile: 'test := 1\nbuild:\n\ttrue\n' });
    expect(await detect_test_command(dir)).toBeUndefined();
    await put({ Makefile: '.PHONY: test\nbuild:\n\ttrue\ntest: build\n\t./run-tests\n' });
    expect(await detect_test_command(dir)).toMatchObject({ command: 'make test', kind: 'make' });
  });

  it('detects cargo and go by their manifests', async () => {
    await put({ 'Cargo.toml': '[package]\nname = "x"\n' });
    expect(await detect_test_command(dir)).toMatchObject({ command: 'cargo test', kind: 'cargo' });
    await rm(join(dir, 'Cargo.toml'));
    await put({ 'go.mod': 'module example.com/m\n' });
    expect(await detect_test_command(dir)).toMatchObject({ command: 'go test ./...', kind: 'go' });
  });

  it.each([
    [{ 'pytest.ini': '[pytest]\n' }, 'pytest.ini'],
    [{ 'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "-q"\n' }, 'pyproject.toml'],
    [{ 'setup.cfg': '[tool:pytest]\n' }, 'setup.cfg'],
    [{ 'tox.ini': '[tox]\n[pytest]\n' }, 'tox.ini'],
    [{ 'conftest.py': '' }, 'conftest.py'],
    [{ 'tests/test_app.py': 'def test_x(): pass\n' }, 'tests/'],
    [{ 'test/unit/app_test.py': 'def test_x(): pass\n' }, 'test/'],
    [{ 'test_app.py': 'def test_x(): pass\n' }, 'work dir'],
  ])('detects pytest from %o', async (files, reason) => {
    await put(files);
    const found = await detect_test_command(dir);
    expect(found).toMatchObject({ command: 'python3 -m pytest', kind: 'pytest' });
    expect(found?.reason).toContain(reason);
  });

  it('runs pytest through uv, poetry or the project venv when present', async () => {
    await put({ 'pytest.ini': '', 'uv.lock': '' });
    expect((await detect_test_command(dir))?.command).toBe('uv run pytest');
    await rm(join(dir, 'uv.lock'));
    await put({ 'poetry.lock': '' });
    expect((await detect_test_command(dir))?.command).toBe('poetry run pytest');
    await rm(join(dir, 'poetry.lock'));
    await put({ '.venv/bin/pytest': '' });
    expect((await detect_test_command(dir))?.command).toBe('.venv/bin/pytest');
  });

  it('prefers package.json, then make, cargo, go, pytest', async () => {
    await put({ 'pytest.ini': '', 'go.mod': 'module m\n' });
    expect((await detect_test_command(dir))?.kind).toBe('go');
    await put({ 'Cargo.toml': '' });
    expect((await detect_test_command(dir))?.kind).toBe('cargo');
    await put({ Makefile: 'test:\n\tcargo test\n' });
    expect((await detect_test_command(dir))?.kind).toBe('make');
    await put({ 'package.json': manifest('jest') });
    expect((await detect_test_command(dir))?.kind).toBe('package_json');
  });

  it('finds nothing in an empty or missing folder, without throwing', async () => {
    expect(await detect_test_command(dir)).toBeUndefined();
    expect(await detect_test_command(join(dir, 'missing'))).toBeUndefined();
  });
});

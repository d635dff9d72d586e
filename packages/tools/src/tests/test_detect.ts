import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where a detected test command comes from. */
export type TestCommandKind = 'package_json' | 'make' | 'cargo' | 'go' | 'pytest' | 'explicit';

/** A project's test command and why it was chosen. */
export interface TestCommand {
  /** The bash command line to run in the work dir. */
  command: string;
  kind: TestCommandKind;
  /** What it was found from, for the report (`package.json scripts.test, pnpm-lock.yaml`). */
  reason: string;
}

/** What `detect_test_command` looks for, in order, for the message when nothing is found. */
export const TEST_COMMAND_SOURCES =
  'package.json scripts.test, a Makefile test target, Cargo.toml, go.mod, pytest ' +
  '(pytest.ini, pyproject.toml [tool.pytest], setup.cfg [tool:pytest], tox.ini [pytest], ' +
  'conftest.py, test_*.py under tests/ or the work dir)';

/** The script `npm init` writes: a test command that only fails. */
const NPM_PLACEHOLDER = /no test specified/;

const LOCKFILES: { file: string; manager: PackageManager }[] = [
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'bun.lock', manager: 'bun' },
  { file: 'bun.lockb', manager: 'bun' },
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
];

type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

const RUN_TEST: { [manager in PackageManager]: string } = {
  npm: 'npm test',
  pnpm: 'pnpm test',
  yarn: 'yarn test',
  // `bun test` is bun's own runner; the script is `bun run test`
  bun: 'bun run test',
};

async function read_text(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The package manager named by `packageManager`, else by the nearest lockfile up to the repo root. */
async function package_manager(
  work_dir: string,
  declared: unknown,
): Promise<{ manager: PackageManager; reason: string }> {
  if (typeof declared === 'string') {
    const name = declared.split('@')[0];
    if (name === 'npm' || name === 'pnpm' || name === 'yarn' || name === 'bun') {
      return { manager: name, reason: `packageManager ${declared}` };
    }
  }
  let folder = work_dir;
  for (let depth = 0; depth < 32; depth++) {
    for (const { file, manager } of LOCKFILES) {
      if (await exists(join(folder, file))) {
        return { manager, reason: folder === work_dir ? file : join(folder, file) };
      }
    }
    // a workspace's lockfile sits at its root; the repository root is as far as we look
    if ((await exists(join(folder, '.git'))) || dirname(folder) === folder) break;
    folder = dirname(folder);
  }
  return { manager: 'npm', reason: 'no lockfile, npm by default' };
}

async function from_package_json(work_dir: string): Promise<TestCommand | undefined> {
  const text = await read_text(join(work_dir, 'package.json'));
  if (text === undefined) return undefined;
  let manifest: { scripts?: { test?: unknown }; packageManager?: unknown };
  try {
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    return undefined;
  }
  const script = manifest?.scripts?.test;
  if (typeof script !== 'string' || script.trim() === '' || NPM_PLACEHOLDER.test(script)) {
    return undefined;
  }
  const { manager, reason } = await package_manager(work_dir, manifest.packageManager);
  return {
    command: RUN_TEST[manager],
    kind: 'package_json',
    reason: `package.json scripts.test (${script}); ${manager} from ${reason}`,
  };
}

async function from_makefile(work_dir: string): Promise<TestCommand | undefined> {
  for (const file of ['GNUmakefile', 'makefile', 'Makefile']) {
    const text = await read_text(join(work_dir, file));
    // `test:` or `test::` starts a rule; `test := …` is a variable
    if (text !== undefined && /^test\s*::?(?!=)/m.test(text)) {
      return { command: 'make test', kind: 'make', reason: `${file} has a test target` };
    }
  }
  return undefined;
}

async function has_python_tests(folder: string, depth = 0): Promise<boolean> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.isFile() && /^test_.*\.py$|_test\.py$/.test(entry.name)) return true;
  }
  if (depth >= 2) return false;
  for (const entry of entries) {
    if (entry.isDirectory() && !entry.name.startsWith('.')) {
      if (await has_python_tests(join(folder, entry.name), depth + 1)) return true;
    }
  }
  return false;
}

async function pytest_reason(work_dir: string): Promise<string | undefined> {
  if (await exists(join(work_dir, 'pytest.ini'))) return 'pytest.ini';
  if ((await read_text(join(work_dir, 'pyproject.toml')))?.includes('[tool.pytest')) {
    return 'pyproject.toml [tool.pytest]';
  }
  if ((await read_text(join(work_dir, 'setup.cfg')))?.includes('[tool:pytest]')) {
    return 'setup.cfg [tool:pytest]';
  }
  if ((await read_text(join(work_dir, 'tox.ini')))?.includes('[pytest]')) return 'tox.ini [pytest]';
  if (await exists(join(work_dir, 'conftest.py'))) return 'conftest.py';
  for (const folder of ['tests', 'test']) {
    if (await has_python_tests(join(work_dir, folder), 1)) return `test_*.py under ${folder}/`;
  }
  const root = await readdir(work_dir).catch(() => [] as string[]);
  if (root.some((name) => /^test_.*\.py$|_test\.py$/.test(name)))
    return 'test_*.py in the work dir';
  return undefined;
}

async function pytest_command(work_dir: string): Promise<string> {
  if (await exists(join(work_dir, 'uv.lock'))) return 'uv run pytest';
  if (await exists(join(work_dir, 'poetry.lock'))) return 'poetry run pytest';
  for (const venv of ['.venv', 'venv']) {
    if (await exists(join(work_dir, venv, 'bin', 'pytest'))) return `${venv}/bin/pytest`;
  }
  return 'python3 -m pytest';
}

/**
 * Finds the test command of the project in `work_dir`, looking in this order: package.json
 * `scripts.test` (run with the package manager its `packageManager` field or lockfile names —
 * looked for up to the repository root — npm by default; the `npm init` placeholder does not
 * count), a Makefile `test` target, Cargo.toml (`cargo test`), go.mod (`go test ./...`), pytest
 * configuration or test files (`uv run pytest`, `poetry run pytest`, a venv's pytest, else
 * `python3 -m pytest`).
 *
 * Contract: only reads files; never throws; `undefined` when nothing is found. Whether the
 * toolchain is installed is not checked: running the command tells.
 */
export async function detect_test_command(work_dir: string): Promise<TestCommand | undefined> {
  const found = (await from_package_json(work_dir)) ?? (await from_makefile(work_dir));
  if (found) return found;
  if (await exists(join(work_dir, 'Cargo.toml'))) {
    return { command: 'cargo test', kind: 'cargo', reason: 'Cargo.toml' };
  }
  if (await exists(join(work_dir, 'go.mod'))) {
    return { command: 'go test ./...', kind: 'go', reason: 'go.mod' };
  }
  const reason = await pytest_reason(work_dir);
  if (reason !== undefined) {
    return { command: await pytest_command(work_dir), kind: 'pytest', reason };
  }
  return undefined;
}

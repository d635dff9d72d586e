import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fs_state } from '@lich/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from '../src/index.js';

let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'lich-real-tree-'));
});

afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

function write(path: string, content: string): void {
  mkdirSync(join(work, path, '..'), { recursive: true });
  writeFileSync(join(work, path), content);
}

function sh(script: string): void {
  execFileSync('sh', ['-c', script], { cwd: work, stdio: 'pipe' });
}

function seed(): void {
  write('README.md', '# project\n\nintro\n');
  write('src/app.ts', 'export const greeting = "hello";\nexport const answer = 42;\n');
  write('src/util.ts', 'export function add(a: number, b: number) {\n  return a + b;\n}\n');
  write('config/settings.ini', 'mode=dev\nlevel=3\n');
  write('build/out/a.js', 'console.log(1);\n');
  write('build/out/b.js', 'console.log(2);\n');
  write('notes/todo.txt', 'one\ntwo\n');
  write('scripts/deploy', 'echo deploying\n');
  write('.env', 'TOKEN=secret\n');
  write('obsolete.txt', 'remove me\n');
  symlinkSync('src/app.ts', join(work, 'current'));
}

/** The turn of the issue: edits, a creation, a deletion, then a shell script doing the rest. */
function agent_turn(): void {
  write(
    'src/app.ts',
    'export const greeting = "bonjour";\nexport const answer = 42;\nexport const x = 1;\n',
  );
  write('src/util.ts', 'export function add(a: number, b: number) {\n  return b + a;\n}\n');
  write('src/new_module.ts', 'export const created = true;\n');
  rmSync(join(work, 'obsolete.txt'));
  sh(
    [
      "sed -i 's/mode=dev/mode=prod/' config/settings.ini",
      'rm -rf build',
      'mv notes/todo.txt notes/done.txt',
      'chmod +x scripts/deploy',
      'ln -s config/settings.ini settings-link',
      'rm .env',
      'rm current && ln -s src/util.ts current',
    ].join(' && '),
  );
}

describe.each([
  ['without git', false],
  ['in a git repository', true],
])('a turn of edits and shell commands, %s', (_name, with_git) => {
  it('is rewound byte for byte, and redone', async () => {
    seed();
    if (with_git) {
      sh(
        'git init -q . && git -c user.email=t@t -c user.name=t add -A && git -c user.email=t@t -c user.name=t commit -qm seed',
      );
    }
    const git_before = with_git ? fs_state(join(work, '.git')) : undefined;
    const store = new CheckpointStore({ work_dir: work });
    const seeded = fs_state(work);
    const before = await store.create({ kind: 'before_prompt', session_id: 's', label: 'do it' });
    agent_turn();
    const after_turn = fs_state(work);
    const after = await store.create({ kind: 'after_prompt', session_id: 's' });

    const changes = store.changes(before.id, after.id, { lines: true });
    expect(changes.map((c) => `${c.status} ${c.path}${c.from ? ` <- ${c.from}` : ''}`)).toEqual([
      'deleted .env',
      'deleted build/out/a.js',
      'deleted build/out/b.js',
      'modified config/settings.ini',
      'modified current',
      'renamed notes/done.txt <- notes/todo.txt',
      'deleted obsolete.txt',
      'mode scripts/deploy',
      'added settings-link',
      'modified src/app.ts',
      'added src/new_module.ts',
      'modified src/util.ts',
    ]);
    expect(changes.find((c) => c.path === 'src/app.ts')).toMatchObject({
      added_lines: 2,
      removed_lines: 1,
    });

    const rewound = await store.restore(before.id, { expected: after.id, session_id: 's' });
    expect(rewound.status).toBe('restored');
    expect(rewound.conflicts).toEqual([]);
    expect(fs_state(work)).toEqual(seeded);
    expect(readFileSync(join(work, '.env'), 'utf8')).toBe('TOKEN=secret\n');

    const redone = await store.restore(rewound.before!.id, { expected: rewound.after!.id });
    expect(redone.status).toBe('restored');
    expect(fs_state(work)).toEqual(after_turn);
    if (with_git) {
      expect(fs_state(join(work, '.git'))).toEqual(git_before);
    }
  });

  it('reports a conflicting user edit instead of overwriting it', async () => {
    seed();
    if (with_git) sh('git init -q .');
    const store = new CheckpointStore({ work_dir: work });
    const before = await store.create({ kind: 'before_prompt' });
    agent_turn();
    const after = await store.create({ kind: 'after_prompt' });
    // the user, in an editor, after the turn
    write('src/app.ts', 'export const greeting = "mine";\n');
    const result = await store.restore(before.id, { expected: after.id });
    expect(result.status).toBe('conflicts');
    expect(result.conflicts).toEqual(['src/app.ts']);
    expect(readFileSync(join(work, 'src/app.ts'), 'utf8')).toBe(
      'export const greeting = "mine";\n',
    );
    expect(readFileSync(join(work, 'config/settings.ini'), 'utf8')).toContain('mode=prod');
  });
});

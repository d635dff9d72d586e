/**
 * `lich rewind` and `lich checkpoints` end to end: a one-shot task that edits a file and runs a
 * shell command (sandboxed where bubblewrap runs), then the built `lich` lists, rewinds, redoes,
 * reports a conflict, shows the store and prunes it.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeServer } from '@lich/testkit';
import { describe, expect, it } from 'vitest';
import { openai_env, run_lich, type Sandbox, sandbox_and_server_each } from './helpers.js';

let sandbox: Sandbox;
let server: FakeServer;
sandbox_and_server_each(
  (made) => {
    ({ sandbox, server } = made);
  },
  { 'notes.txt': 'old notes\n', 'build/out.js': 'built\n' },
);

const lich = (args: readonly string[]) =>
  run_lich(args, {
    env: openai_env(sandbox, server.base_url),
    cwd: sandbox.work_dir,
    timeout_ms: 30_000,
  });

const read = (path: string) => readFile(join(sandbox.work_dir, path), 'utf8');

/** One task: an edit, then a command that deletes a folder and moves a file. */
async function task(): Promise<void> {
  server.enqueue(
    {
      tool_calls: [
        { name: 'write_file', arguments: { path: 'notes.txt', content: 'new notes\nmore\n' } },
        { name: 'terminal', arguments: { command: 'rm -rf build && mv notes.txt kept.txt' } },
      ],
    },
    { text: 'done' },
  );
  const result = await lich(['--yolo', 'change the notes']);
  expect(result, result.stderr).toMatchObject({ code: 0, stdout: 'done\n' });
}

describe('lich rewind', () => {
  it('lists the prompts, rewinds the files and the conversation, and redoes it', async () => {
    await task();
    expect(await read('kept.txt')).toBe('new notes\nmore\n');

    const listed = await lich(['rewind']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/↺\s+1 .*change the notes .*3 files \+2 −2/);

    const dry = await lich(['rewind', '1', '--dry-run']);
    expect(dry).toMatchObject({ code: 0 });
    expect(dry.stdout).toContain('Rewinding to before prompt 1 would do this:');
    await expect(read('notes.txt')).rejects.toThrow();

    const done = await lich(['rewind', '1', '--json']);
    expect(done.code).toBe(0);
    const outcome = JSON.parse(done.stdout) as {
      status: string;
      conversation: { removed: number };
    };
    expect(outcome.status).toBe('rewound');
    expect(outcome.conversation.removed).toBeGreaterThan(0);
    expect(await read('notes.txt')).toBe('old notes\n');
    expect(await read('build/out.js')).toBe('built\n');
    await expect(read('kept.txt')).rejects.toThrow();
    expect((await lich(['rewind'])).stdout).toContain('no prompts to rewind');

    const redo = await lich(['rewind', '--redo']);
    expect(redo, redo.stderr).toMatchObject({ code: 0 });
    expect(await read('kept.txt')).toBe('new notes\nmore\n');
    expect((await lich(['rewind'])).stdout).toContain('change the notes');
  });

  it('stops at a file someone else changed, exit 1, and overwrites it when told', async () => {
    await task();
    await writeFile(join(sandbox.work_dir, 'kept.txt'), 'edited by hand\n');
    const stopped = await lich(['rewind', '1', '--files']);
    expect(stopped.code).toBe(1);
    expect(stopped.stdout).toContain('kept.txt');
    expect(await read('kept.txt')).toBe('edited by hand\n');
    const forced = await lich(['rewind', '1', '--files', '--overwrite']);
    expect(forced.code).toBe(0);
    expect(await read('notes.txt')).toBe('old notes\n');
    const bad = await lich(['rewind', '7']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no prompt 7');
  });
});

describe('lich checkpoints', () => {
  it('shows what the store holds and prunes it', async () => {
    await task();
    const shown = await lich(['checkpoints']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/\.lich\/checkpoints: 2 checkpoints, /);
    expect(shown.stdout).toContain('before_prompt');
    const json = JSON.parse((await lich(['checkpoints', '--json'])).stdout) as {
      checkpoints: unknown[];
    };
    expect(json.checkpoints).toHaveLength(2);
    // nothing is old yet: a prune keeps everything
    const pruned = await lich(['checkpoints', '--prune']);
    expect(pruned).toMatchObject({ code: 0 });
    expect(pruned.stdout).toMatch(/^removed 0 checkpoints/);
    await writeFile(join(sandbox.work_dir, '.lich', 'config.json'), '{ "checkpoints": false }\n');
    expect((await lich(['checkpoints'])).stderr).toContain('checkpoints are off');
  });
});

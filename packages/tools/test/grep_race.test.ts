/**
 * Finding X4: a folder the guard checked, swapped for a link to outside the work dir while the
 * tool works, leaks nothing. A racer renames `sub` and a link to an outside folder back and forth
 * every millisecond while `grep` (both engines) and `list_dir` run again and again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../src/executor.js';
import { list_dir_tool } from '../src/fs/list_dir.js';
import { grep_search } from '../src/grep/grep.js';
import { find_ripgrep } from '../src/grep/grep_rg.js';
import { ToolRegistry } from '../src/registry.js';

let base: string;
let work_dir: string;
let racer: ChildProcess | undefined;

const RACER = `
const fs = require('node:fs');
process.chdir(process.argv[1]);
const end = Date.now() + 60_000;
function flip() {
  try {
    fs.renameSync('sub', 'spare_dir'); fs.renameSync('spare_link', 'sub');
    fs.renameSync('sub', 'spare_link'); fs.renameSync('spare_dir', 'sub');
  } catch {}
  if (Date.now() < end) setImmediate(flip);
}
flip();
`;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'lich-grep-race-')));
  work_dir = join(base, 'work');
  const outside = join(base, 'outside');
  await mkdir(join(work_dir, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(work_dir, 'sub', 'secret.txt'), 'INSIDE-OK\n');
  await writeFile(join(outside, 'secret.txt'), `OUTSIDE-SECRET-91\n${'x'.repeat(123_456)}\n`);
  await symlink(outside, join(work_dir, 'spare_link'));
  racer = spawn(process.execPath, ['-e', RACER, work_dir], { stdio: 'ignore' });
});

afterAll(async () => {
  racer?.kill('SIGKILL');
  await rm(base, { recursive: true, force: true });
});

/** Runs `probe` again and again for `ms`, gathering what it returned. */
async function for_a_while(ms: number, probe: () => Promise<string>): Promise<string[]> {
  const seen: string[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) seen.push(await probe());
  return seen;
}

describe('a folder swapped for a link while a tool works (X4)', () => {
  it('never shows a line from outside through grep, with either engine', async () => {
    const engines: ('js' | 'rg')[] = (await find_ripgrep()) === undefined ? ['js'] : ['js', 'rg'];
    for (const engine of engines) {
      const seen = await for_a_while(2_500, async () => {
        const folder = await grep_search({ work_dir, pattern: 'SECRET|OK', path: 'sub', engine });
        const file = await grep_search({
          work_dir,
          pattern: 'SECRET|OK',
          path: 'sub/secret.txt',
          engine,
        });
        return `${folder.output}\n${file.output}`;
      });
      expect(seen.length).toBeGreaterThan(20);
      expect(seen.filter((output) => output.includes('OUTSIDE-SECRET'))).toEqual([]);
      // the search still works between the swaps
      expect(seen.some((output) => output.includes('sub/secret.txt:1:INSIDE-OK'))).toBe(true);
    }
  }, 30_000);

  it('never shows an outside file through list_dir', async () => {
    const registry = new ToolRegistry();
    registry.register(list_dir_tool);
    const tools = new ToolExecutor(registry, { work_dir, sandbox: { mode: 'off' } });
    const seen = await for_a_while(2_000, async () => {
      const result = await tools.execute('list_dir', { path: 'sub' });
      return result.output;
    });
    expect(seen.length).toBeGreaterThan(20);
    // the outside file is 120 KB; the inside one 10 bytes
    expect(seen.filter((output) => /secret\.txt {2}\(1\d\d(\.\d)? KB\)/.test(output))).toEqual([]);
    expect(seen.some((output) => output.includes('secret.txt  (10 B)'))).toBe(true);
  }, 30_000);
});

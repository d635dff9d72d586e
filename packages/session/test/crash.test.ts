import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { read_session, read_session_messages, SessionError, SessionStore } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const child_script = join(here, 'children', 'appender.mjs');

let dir: string;
const children = new Set<ChildProcess>();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-crash-'));
});

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  await rm(dir, { recursive: true, force: true });
});

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

type Said = Record<string, unknown>;

/** Starts a child; `lines` yields what it says, one JSON object per line. */
function start(command: string, args: string[]) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const said: Said[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    said.push(JSON.parse(line) as Said);
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      children.delete(child);
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    });
  });
  const until = async (test: (said: Said[]) => boolean) => {
    while (!test(said)) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`child exited early: ${stderr}`);
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { child, said, until, exited, stderr: () => stderr };
}

function content_of(index: number, bytes: number): string {
  return `${index}:${'x'.repeat(bytes + ((index * 7919) % bytes))}`;
}

describe('a writer killed mid-write (SIGKILL)', () => {
  it('leaves every acknowledged record readable, and the session can be continued', async () => {
    const store = new SessionStore({ session_dir: dir });
    let torn_by_kill = 0;
    for (let round = 0; round < 3; round++) {
      const id = `killed-${round}`;
      const bytes = 2_000_000;
      const writer = start(process.execPath, [child_script, 'loop', dir, id, String(bytes)]);
      await writer.until(
        (said) => said.filter((line) => 'acknowledged' in line).length >= 5 + round * 7,
      );
      // land the kill at an arbitrary moment of the append loop, often inside a write
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 15));
      writer.child.kill('SIGKILL');
      await writer.exited;
      const acknowledged = Math.max(
        ...writer.said.flatMap((line) =>
          'acknowledged' in line ? [line.acknowledged as number] : [],
        ),
      );

      const path = store.path_of(id);
      const { records, problems } = await read_session(path);
      expect(records[0]?.type).toBe('session_start');
      const messages = records.slice(1);
      // every record the child saw written is there, whole, in order, and nothing else is
      expect(messages.length).toBeGreaterThanOrEqual(acknowledged + 1);
      messages.forEach((record, index) => {
        expect(record).toMatchObject({ type: 'message', index });
        expect(
          record.type === 'message' && record.message.content === content_of(index, bytes),
        ).toBe(true);
      });
      expect(problems.length).toBeLessThanOrEqual(1);
      let complete = messages.length;
      if (problems[0] !== undefined) {
        expect(problems[0].kind).toBe('torn_tail');
        torn_by_kill += 1;
      } else {
        // the kill fell between two writes: cut the last record in half by hand instead
        const text = await readFile(path);
        const last_start = text.lastIndexOf(0x0a, text.length - 2) + 1;
        await truncate(path, last_start + Math.floor((text.length - last_start) / 2));
        complete -= 1;
        const cut = await read_session(path);
        expect(cut.records).toHaveLength(complete + 1);
        expect(cut.problems).toEqual([expect.objectContaining({ kind: 'torn_tail' })]);
      }

      // the dead writer's lock is taken over; the next record starts on its own line
      const handle = await store.open(id);
      await handle.append({
        type: 'message',
        run: 1,
        index: complete,
        source: 'seed',
        message: { role: 'user', content: 'after the crash' },
      });
      await handle.close();
      const again = await read_session(path);
      expect(again.problems).toEqual([]);
      expect(again.records).toHaveLength(complete + 2);
      const resumed = await read_session_messages(path);
      expect(resumed.at(-1)?.content).toBe('after the crash');
    }
    // how many kills cut a record in half is up to timing (the other rounds were cut by hand)
    expect(torn_by_kill).toBeLessThanOrEqual(3);
  }, 60_000);
});

describe('two writers', () => {
  it('refuses a second process while the first holds the session, then allows it', async () => {
    const store = new SessionStore({ session_dir: dir });
    const handle = await store.create({
      id: 'shared',
      work_dir: dir,
      model: 'm',
      lich_version: '0',
    });
    await handle.close();
    const holder = start(process.execPath, [child_script, 'hold', dir, 'shared']);
    await holder.until((said) => said.some((line) => line.ready === true));
    const pid = holder.child.pid as number;

    const error = await store.open('shared').catch((thrown: unknown) => thrown);
    expect(SessionError.is_instance(error)).toBe(true);
    expect((error as SessionError).code).toBe('locked');
    expect((error as SessionError).message).toContain(`process ${pid} has it open for writing`);
    // a second holder process is refused too
    const second = start(process.execPath, [child_script, 'hold', dir, 'shared']);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr()).toContain(`process ${pid} has it open for writing`);
    // readers are not blocked
    expect((await read_session(handle.path)).records).toHaveLength(1);

    holder.child.kill('SIGKILL');
    await holder.exited;
    const reopened = await store.open('shared');
    expect((await readFile(`${handle.path}.lock`, 'utf8')).trim()).toBe(String(process.pid));
    await reopened.close();
  }, 30_000);
});

describe('a full disk (a file size limit in a child)', () => {
  it('rolls back the partial record, surfaces the error, and a later append succeeds', async () => {
    const limit_kib = 64;
    const command = `ulimit -f ${limit_kib}; trap '' XFSZ; exec "$0" "$@"`;
    const filler = start('bash', [
      '-c',
      command,
      process.execPath,
      child_script,
      'fill',
      dir,
      'full',
      '10000',
    ]);
    expect(await filler.exited).toBe(0);
    const failed = filler.said.find((line) => 'failed' in line);
    const later = filler.said.find((line) => 'later' in line);
    expect(failed).toMatchObject({ code: 'write_failed' });
    expect(failed?.message).toContain('EFBIG');
    expect(failed?.message).toContain('the file size limit was reached');
    expect(failed?.message).toContain('the partial record was removed');
    // the failed record reached the limit midway, then was cut back to where it started
    expect(failed?.after).toBe(failed?.before);
    expect(later).toMatchObject({ later: 'ok', failed_writes: 1 });

    const path = join(dir, 'full.jsonl');
    expect((await stat(path)).size).toBe(later?.size);
    expect((await stat(path)).size).toBeLessThanOrEqual(limit_kib * 1024);
    const { records, problems } = await read_session(path);
    expect(problems).toEqual([]);
    const contents = records.flatMap((record) =>
      record.type === 'message' ? [record.message.content] : [],
    );
    expect(contents).toHaveLength((failed?.failed as number) + 1);
    expect(contents.at(-1)).toBe('a small record after the failure');
    expect(contents.slice(0, -1).every((content) => content === 'y'.repeat(10000))).toBe(true);
  }, 30_000);
});

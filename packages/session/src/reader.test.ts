import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from './errors.js';
import { list_sessions } from './list.js';
import { read_session, read_session_messages, type SessionProblem } from './reader.js';
import type { SessionRecordInput } from './records.js';
import { SessionStore } from './store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-reader-'));
  store = new SessionStore({ session_dir: dir });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NEW = { work_dir: '/w', model: 'm', lich_version: '0.1.0' };

function user(index: number, content = `message ${index}`): SessionRecordInput {
  return { type: 'message', run: 1, index, source: 'seed', message: { role: 'user', content } };
}

async function session_with(count: number): Promise<string> {
  const handle = await store.create(NEW);
  for (let index = 0; index < count; index++) await handle.append(user(index));
  await handle.close();
  return handle.path;
}

async function rejection(promise: Promise<unknown>): Promise<SessionError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!SessionError.is_instance(error)) throw new Error(`expected a SessionError, got ${error}`);
  return error;
}

const quiet = { on_problem: () => undefined };

describe('torn tails', () => {
  it('drops a torn last line and reports it, without touching the file', async () => {
    const path = await session_with(3);
    const whole = await readFile(path);
    await truncate(path, whole.length - 10);
    const cut = await readFile(path);
    const { records, problems } = await read_session(path);
    expect(records).toHaveLength(3);
    expect(problems).toEqual([
      expect.objectContaining({
        kind: 'torn_tail',
        line: 4,
        message: expect.stringContaining('cut off'),
      }),
    ]);
    expect(await readFile(path)).toEqual(cut);
    const heard: SessionProblem[] = [];
    const messages = await read_session_messages(path, {
      on_problem: (problem) => heard.push(problem),
    });
    expect(messages.map((message) => message.content)).toEqual(['message 0', 'message 1']);
    expect(heard).toHaveLength(1);
  });

  it('truncated by hand, then appended to: the new record starts on its own line', async () => {
    const path = await session_with(3);
    const whole = await readFile(path, 'utf8');
    const last_line_start = whole.lastIndexOf('\n', whole.length - 2) + 1;
    const torn = whole.slice(last_line_start, whole.length - 20);
    await writeFile(path, whole.slice(0, whole.length - 20));
    const id = path.slice(dir.length + 1, -'.jsonl'.length);
    const handle = await store.open(id);
    expect(handle.state.slots).toHaveLength(2);
    expect(handle.problems).toEqual([
      expect.objectContaining({ kind: 'torn_tail', line: 4, moved_to: `${path}.corrupt` }),
    ]);
    await handle.append(user(2, 'written after the crash'));
    await handle.close();
    const { records, problems } = await read_session(path);
    expect(problems).toEqual([]);
    expect(
      records.map((record) => (record.type === 'message' ? record.message.content : record.type)),
    ).toEqual(['session_start', 'message 0', 'message 1', 'written after the crash']);
    const text = await readFile(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').every((line) => line === '' || line.startsWith('{"v":1'))).toBe(true);
    // the torn bytes are kept beside the file, not lost
    expect(await readFile(`${path}.corrupt`, 'utf8')).toBe(`${torn}\n`);
  });

  it('adds only the missing newline when the last record is complete', async () => {
    const path = await session_with(2);
    const whole = await readFile(path, 'utf8');
    await writeFile(path, whole.slice(0, -1));
    const handle = await store.open(path.slice(dir.length + 1, -'.jsonl'.length));
    await handle.append(user(2));
    await handle.close();
    const { records, problems } = await read_session(path);
    expect(problems).toEqual([]);
    expect(records).toHaveLength(4);
  });

  it('reads a session whose very first record was torn as empty', async () => {
    const path = join(dir, 'torn-start.jsonl');
    await writeFile(path, '{"v":1,"type":"session_start","at":"2025-');
    const { records, problems } = await read_session(path);
    expect(records).toEqual([]);
    expect(problems[0]?.kind).toBe('torn_tail');
    expect(await read_session_messages(path, quiet)).toEqual([]);
  });
});

describe('corrupt lines', () => {
  async function corrupted(): Promise<{ path: string; before: Buffer }> {
    const path = await session_with(4);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[2] = '{"v":1,"type":"message", garbage';
    lines[4] = 'not json at all';
    await writeFile(path, lines.join('\n'));
    return { path, before: await readFile(path) };
  }

  it('fails with the line number, and leaves the file alone', async () => {
    const { path, before } = await corrupted();
    const error = await rejection(read_session(path));
    expect(error.code).toBe('corrupt');
    expect(error.line).toBe(3);
    expect(error.message).toContain('line 3');
    expect(error.message).toContain('and 1 more bad lines');
    expect(error.message).toContain('repair');
    await expect(read_session_messages(path, quiet)).rejects.toThrow('line 3');
    expect((await rejection(store.open(path.slice(dir.length + 1, -6)))).code).toBe('corrupt');
    expect(await readFile(path)).toEqual(before);
    await expect(stat(`${path}.corrupt`)).rejects.toThrow();
    await expect(stat(`${path}.lock`)).rejects.toThrow();
  });

  it('with repair, moves the bad lines to .corrupt and rewrites the good ones atomically', async () => {
    const { path } = await corrupted();
    const { records, problems, repaired } = await read_session(path, { repair: true });
    expect(repaired).toBe(true);
    expect(problems.map((problem) => [problem.kind, problem.line])).toEqual([
      ['corrupt_line', 3],
      ['corrupt_line', 5],
    ]);
    expect(problems[0]?.moved_to).toBe(`${path}.corrupt`);
    expect(records.map((record) => record.type)).toEqual(['session_start', 'message', 'message']);
    expect(await readFile(`${path}.corrupt`, 'utf8')).toBe(
      '{"v":1,"type":"message", garbage\nnot json at all\n',
    );
    const again = await read_session(path);
    expect(again.problems).toEqual([]);
    expect(again.records).toEqual(records);
    // no temporary file is left behind
    expect((await readdir(dir)).sort()).toEqual(
      [path.slice(dir.length + 1), `${path.slice(dir.length + 1)}.corrupt`].sort(),
    );
  });

  it('repairs through SessionStore.open when asked', async () => {
    const { path } = await corrupted();
    const handle = await store.open(path.slice(dir.length + 1, -6), { repair: true });
    await handle.append(user(9));
    await handle.close();
    expect((await read_session(path)).records).toHaveLength(4);
  });

  it('refuses to repair while another process writes the session', async () => {
    const { path, before } = await corrupted();
    await writeFile(`${path}.lock`, '1\n');
    const error = await rejection(read_session(path, { repair: true }));
    expect(error.code).toBe('locked');
    expect(error.message).toContain('cannot repair while it is written');
    expect(await readFile(path)).toEqual(before);
  });
});

describe('bad input', () => {
  it('a file that is not JSONL: a clear error, nothing changed', async () => {
    const path = join(dir, 'notes.jsonl');
    const text = '# My notes\n\nThis is markdown, not a transcript.\n';
    await writeFile(path, text);
    for (const options of [{}, { repair: true }]) {
      const error = await rejection(read_session(path, options));
      expect(error.code).toBe('not_jsonl');
      expect(error.message).toContain('is not a Lich session transcript');
    }
    expect((await rejection(store.open('notes'))).code).toBe('not_jsonl');
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(await readdir(dir)).toEqual(['notes.jsonl']);
  });

  it('JSON lines of something else are not a session either', async () => {
    const path = join(dir, 'other.jsonl');
    await writeFile(path, '{"event":"click"}\n{"event":"scroll"}\n');
    expect((await rejection(read_session(path))).code).toBe('not_jsonl');
  });

  it('binary content is not a session', async () => {
    const path = join(dir, 'binary.jsonl');
    await writeFile(path, Buffer.from([0, 1, 2, 255, 254, 10, 0]));
    expect((await rejection(read_session(path))).code).toBe('not_jsonl');
  });

  it('records from a newer version: a clear error, nothing overwritten, not even on repair', async () => {
    const path = await session_with(2);
    const newer = JSON.stringify({ v: 2, type: 'message', at: 'x', parts: [] });
    await writeFile(path, `${await readFile(path, 'utf8')}${newer}\n{"v":1,"type":"broken\n`);
    const before = await readFile(path);
    for (const options of [{}, { repair: true }]) {
      const error = await rejection(read_session(path, options));
      expect(error.code).toBe('newer_version');
      expect(error.line).toBe(4);
      expect(error.message).toContain('newer Lich (session format v2; this version reads v1)');
    }
    const id = path.slice(dir.length + 1, -6);
    expect((await rejection(store.open(id, { repair: true }))).code).toBe('newer_version');
    expect(await readFile(path)).toEqual(before);
    await expect(stat(`${path}.corrupt`)).rejects.toThrow();
    await expect(stat(`${path}.lock`)).rejects.toThrow();
  });

  it('a missing file and a folder give clear errors', async () => {
    expect((await rejection(read_session(join(dir, 'none.jsonl')))).code).toBe('not_found');
    expect((await rejection(read_session(dir))).code).toBe('not_jsonl');
  });

  it('an empty file is an empty session', async () => {
    const path = join(dir, 'empty.jsonl');
    await writeFile(path, '');
    expect(await read_session(path)).toMatchObject({ records: [], problems: [] });
  });
});

describe('files written by an older Lich', () => {
  it("reads a run_end's 'total_usage' as 'usage_total', in the reader and the listing", async () => {
    const path = await session_with(1);
    const old_end = {
      v: 1,
      type: 'run_end',
      at: new Date().toISOString(),
      run: 1,
      stopped_reason: 'final',
      turns_used: 1,
      messages_count: 1,
      usage: { input_tokens: 3, output_tokens: 1 },
      total_usage: { input_tokens: 30, output_tokens: 10 },
    };
    await writeFile(path, `${await readFile(path, 'utf8')}${JSON.stringify(old_end)}\n`);
    const { records, problems } = await read_session(path);
    expect(problems).toEqual([]);
    const end = records.at(-1);
    expect(end).toMatchObject({ type: 'run_end', usage_total: { input_tokens: 30 } });
    expect(end).not.toHaveProperty('total_usage');
    const [summary] = await list_sessions(dir);
    expect(summary?.usage).toEqual({ input_tokens: 30, output_tokens: 10 });
  });
});

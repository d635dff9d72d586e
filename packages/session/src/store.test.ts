import { spawnSync } from 'node:child_process';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from './errors.js';
import { read_session } from './reader.js';
import type { SessionRecordInput } from './records.js';
import { is_valid_session_id, new_session_id } from './session_id.js';
import { nest_sessions } from './session_tree.js';
import { default_session_dir, SessionStore } from './store.js';

let dir: string;
let store: SessionStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-store-'));
  store = new SessionStore({ session_dir: join(dir, 'sessions') });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NEW = { work_dir: '/work/project', model: 'gpt-test', lich_version: '0.1.0' };

function user(index: number, content = `message ${index}`): SessionRecordInput {
  return { type: 'message', run: 1, index, source: 'seed', message: { role: 'user', content } };
}

async function rejection(promise: Promise<unknown>): Promise<SessionError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!SessionError.is_instance(error)) throw new Error(`expected a SessionError, got ${error}`);
  return error;
}

describe('session ids', () => {
  it('are sortable by time and safe', () => {
    const early = new_session_id(new Date('2025-01-02T03:04:05.006Z'));
    const late = new_session_id(new Date('2025-01-02T03:04:05.007Z'));
    expect(early).toMatch(/^20250102-030405-006-[0-9a-f]{8}$/);
    expect(early < late).toBe(true);
    expect(is_valid_session_id(early)).toBe(true);
  });

  it.each([
    ['a/b', 'path separator'],
    ['../escape', 'path separator'],
    ['..', "contains '..'"],
    ['a..b', "contains '..'"],
    ['', 'empty'],
    ['.hidden', 'only letters'],
    ['with space', 'only letters'],
    ['x'.repeat(129), 'longer than 128'],
    ['back\\slash', 'path separator'],
  ])('refuses the id %j clearly and creates nothing', async (id, why) => {
    expect(() => store.path_of(id)).toThrow(why);
    const error = await rejection(store.create({ ...NEW, id }));
    expect(error.code).toBe('invalid_id');
    expect(error.message).toContain('invalid session id');
    expect((await rejection(store.open(id))).code).toBe('invalid_id');
    await expect(readdir(dir)).resolves.toEqual([]);
  });
});

describe('SessionStore', () => {
  it('creates a session file with its session_start record', async () => {
    const handle = await store.create(NEW);
    expect(handle.path).toBe(join(dir, 'sessions', `${handle.id}.jsonl`));
    expect(store.path_of(handle.id)).toBe(handle.path);
    await handle.close();
    const lines = (await readFile(handle.path, 'utf8')).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\{"v":1,"type":"session_start","at":"/);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ id: handle.id, ...NEW });
    await expect(stat(`${handle.path}.lock`)).rejects.toThrow();
  });

  it('documents its default folder', () => {
    expect(default_session_dir('/work/p')).toBe('/work/p/.lich/sessions');
  });

  it('never overwrites an existing session', async () => {
    const handle = await store.create({ ...NEW, id: 'fixed-id' });
    await handle.append(user(0));
    await handle.close();
    const before = await readFile(handle.path, 'utf8');
    const error = await rejection(store.create({ ...NEW, id: 'fixed-id' }));
    expect(error.code).toBe('exists');
    expect(await readFile(handle.path, 'utf8')).toBe(before);
  });

  it('opens a session to append to it, with the state it holds', async () => {
    const handle = await store.create(NEW);
    await handle.append(user(0));
    await handle.close();
    const again = await store.open(handle.id);
    expect(again.state.slots).toEqual([{ role: 'user', content: 'message 0' }]);
    await again.append(user(1));
    await again.close();
    const { records, problems } = await read_session(handle.path);
    expect(problems).toEqual([]);
    expect(records.map((record) => record.type)).toEqual(['session_start', 'message', 'message']);
  });

  it('refuses a second writer in the same process, and allows it after close', async () => {
    const handle = await store.create(NEW);
    const error = await rejection(store.open(handle.id));
    expect(error.code).toBe('locked');
    expect(error.message).toContain('already open for writing in this process');
    await handle.close();
    const again = await store.open(handle.id);
    await again.close();
  });

  it('takes over the lock of a process that died', async () => {
    const handle = await store.create(NEW);
    await handle.close();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await writeFile(`${handle.path}.lock`, `${dead}\n`);
    const again = await store.open(handle.id);
    expect((await readFile(`${handle.path}.lock`, 'utf8')).trim()).toBe(String(process.pid));
    await again.close();
    await expect(stat(`${handle.path}.lock`)).rejects.toThrow();
  });

  it('refuses a lock held by another live process, naming it', async () => {
    const handle = await store.create(NEW);
    await handle.close();
    await writeFile(`${handle.path}.lock`, '1\n'); // pid 1 always runs
    const error = await rejection(store.open(handle.id));
    expect(error.code).toBe('locked');
    expect(error.message).toContain('process 1 has it open for writing');
    expect((await readFile(`${handle.path}.lock`, 'utf8')).trim()).toBe('1');
  });

  it('says clearly when the session folder cannot be created (its parent is a file)', async () => {
    await writeFile(join(dir, 'plain-file'), 'not a folder');
    const blocked = new SessionStore({ session_dir: join(dir, 'plain-file', 'sessions') });
    const error = await rejection(blocked.create(NEW));
    expect(error.code).toBe('not_writable');
    expect(error.message).toContain('cannot create the session folder');
    expect(error.message).toContain('ENOTDIR');
    expect(await readFile(join(dir, 'plain-file'), 'utf8')).toBe('not a folder');
  });

  it('says clearly when the session folder is a file', async () => {
    await writeFile(join(dir, 'sessions'), 'a file where the folder should be');
    const error = await rejection(store.create(NEW));
    expect(error.code).toBe('not_writable');
    expect(await readFile(join(dir, 'sessions'), 'utf8')).toBe('a file where the folder should be');
  });

  it('never replaces whatever is already at the session file path', async () => {
    await mkdir(join(dir, 'sessions', 'taken.jsonl'), { recursive: true });
    const error = await rejection(store.create({ ...NEW, id: 'taken' }));
    expect(error.code).toBe('exists');
    await expect(readdir(join(dir, 'sessions'))).resolves.toEqual(['taken.jsonl']);
  });

  it('reports a missing session', async () => {
    const error = await rejection(store.open('20250101-000000-000-00000000'));
    expect(error.code).toBe('not_found');
  });

  it('rejects appends after close, and a record that cannot be serialised, then goes on', async () => {
    const handle = await store.create(NEW);
    const bad = {
      ...user(0),
      message: { role: 'user', content: 'x', extra: 1n },
    } as unknown as SessionRecordInput;
    expect((await rejection(handle.append(bad))).code).toBe('invalid_record');
    await handle.append(user(0));
    await handle.close();
    await handle.close();
    expect((await rejection(handle.append(user(1)))).code).toBe('closed');
    const { records } = await read_session(handle.path);
    expect(records).toHaveLength(2);
  });

  it('keeps the order of concurrent appends, one full line each', async () => {
    const handle = await new SessionStore({ session_dir: dir, fsync: 'record' }).create(NEW);
    await Promise.all(
      Array.from({ length: 200 }, (_, index) => handle.append(user(index, 'y'.repeat(index * 50)))),
    );
    await handle.flush();
    await handle.close();
    const { records } = await read_session(handle.path);
    const indexes = records.flatMap((record) => (record.type === 'message' ? [record.index] : []));
    expect(indexes).toEqual(Array.from({ length: 200 }, (_, index) => index));
  });

  it('does not write a record whose signal fired, and reports it', async () => {
    const handle = await store.create(NEW);
    const error = await rejection(handle.append(user(0), { signal: AbortSignal.abort() }));
    expect(error.code).toBe('aborted');
    expect(handle.failed_writes).toBe(1);
    await handle.close();
    expect((await read_session(handle.path)).records).toHaveLength(1);
    await expect(store.create({ ...NEW, signal: AbortSignal.abort() })).rejects.toThrow('aborted');
  });
});

describe('SessionStore confined_to', () => {
  it('refuses a session folder that leads outside through a link, and makes nothing there', async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'lich-confined-')));
    try {
      const work = join(base, 'work');
      const outside = join(base, 'outside');
      await mkdir(work);
      await mkdir(outside);
      await symlink(outside, join(work, '.lich'));
      const store = new SessionStore({
        session_dir: join(work, '.lich', 'sessions'),
        confined_to: work,
      });
      await expect(
        store.create({ work_dir: work, model: 'm', lich_version: '0' }),
      ).rejects.toMatchObject({ code: 'not_writable' });
      expect(await readdir(outside)).toEqual([]);
      const inside = new SessionStore({ session_dir: join(work, 'logs'), confined_to: work });
      const handle = await inside.create({ work_dir: work, model: 'm', lich_version: '0' });
      await handle.close();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});

describe('SessionStore: subagents beside their parents', () => {
  it('lists a parent and its two children with parent_session_id, and nests them', async () => {
    const at = (second: number) => () => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
    const parent = await new SessionStore({ session_dir: store.session_dir, now: at(0) }).create(
      NEW,
    );
    const children = [];
    for (const second of [1, 2]) {
      const made = new SessionStore({ session_dir: store.session_dir, now: at(second) });
      children.push(await made.create({ ...NEW, parent_session_id: parent.id }));
    }
    const other = await new SessionStore({ session_dir: store.session_dir, now: at(3) }).create(
      NEW,
    );
    for (const handle of [parent, ...children, other]) await handle.close();
    const listed = await store.list();
    expect(listed).toHaveLength(4);
    const by_id = new Map(listed.map((summary) => [summary.id, summary]));
    expect(by_id.get(parent.id)?.parent_session_id).toBeUndefined();
    expect(by_id.get(other.id)?.parent_session_id).toBeUndefined();
    for (const child of children) {
      expect(by_id.get(child.id)?.parent_session_id).toBe(parent.id);
    }
    const nested = nest_sessions(
      [...listed].sort((a, b) => a.created.localeCompare(b.created)).reverse(),
      { children: true },
    );
    expect(nested.map((row) => [row.session.id, row.depth, row.descendants])).toEqual([
      [other.id, 0, 0],
      [parent.id, 0, 2],
      [children[0]?.id, 1, 0],
      [children[1]?.id, 1, 0],
    ]);
  });
});

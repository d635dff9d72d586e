import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from './errors.js';
import { read_session_ids, session_file } from './session_files.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-session-files-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('session_file', () => {
  it('is <session_dir>/<id>.jsonl', () => {
    expect(session_file('/s', '20250301-1')).toBe(join('/s', '20250301-1.jsonl'));
  });
});

describe('read_session_ids', () => {
  it('lists the valid ids of .jsonl files only', async () => {
    for (const name of ['a.jsonl', 'b-2.jsonl', 'notes.txt', '.hidden.jsonl', 'a.jsonl.lock']) {
      await writeFile(join(dir, name), '');
    }
    await mkdir(join(dir, 'folder'));
    expect((await read_session_ids(dir)).sort()).toEqual(['a', 'b-2']);
  });

  it('gives [] for a missing folder', async () => {
    expect(await read_session_ids(join(dir, 'missing'))).toEqual([]);
  });

  it('rejects with not_found naming a folder it cannot read', async () => {
    const file = join(dir, 'file');
    await writeFile(file, '');
    const error = await read_session_ids(file).catch((caught: unknown) => caught);
    expect(SessionError.is_instance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'not_found', path: file });
    expect((error as Error).message).toContain(`cannot read the session folder ${file}`);
  });
});

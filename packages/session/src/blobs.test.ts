import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImagePart, Message } from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { externalize_images, resolve_images } from './blobs.js';
import { export_markdown } from './markdown.js';
import { common_prefix } from './same_message.js';
import { search_sessions } from './search.js';
import { SessionStore } from './store.js';

// a 1×1 PNG
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const HASH = createHash('sha256').update(Buffer.from(PNG, 'base64')).digest('hex');
const SHOT: ImagePart = { type: 'image', media_type: 'image/png', data: PNG, name: 'shot.png' };
const NEW = { work_dir: '/work/project', model: 'gpt-test', lich_version: '0.1.0' };

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-blobs-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pictures in session files', () => {
  it('moves bytes out of a record, leaving the same object when there is no picture', () => {
    const plain = { type: 'message', message: { role: 'user', content: 'hi' } };
    expect(externalize_images(plain).value).toBe(plain);
    const record = { message: { role: 'user', content: [{ type: 'text', text: 'a' }, SHOT] } };
    const { value, blobs } = externalize_images(record);
    expect(value.message.content[1]).toEqual({
      type: 'image',
      media_type: 'image/png',
      name: 'shot.png',
      blob: HASH,
    });
    expect(blobs.get(HASH)?.toString('base64')).toBe(PNG);
    expect((record.message.content[1] as ImagePart).data).toBe(PNG);
  });

  it('keeps a picture once under .lich/blobs, by hash, never as base64 in the JSONL; reads it back on resume', async () => {
    const store = new SessionStore({ session_dir: join(dir, '.lich', 'sessions') });
    expect(store.blob_dir).toBe(join(dir, '.lich', 'blobs'));
    const handle = await store.create(NEW);
    const message: Message = { role: 'user', content: [{ type: 'text', text: 'look' }, SHOT] };
    await handle.append({ type: 'message', run: 1, index: 0, source: 'seed', message });
    await handle.append({ type: 'message', run: 1, index: 1, source: 'seed', message });
    await handle.close();
    const line = await readFile(handle.path, 'utf8');
    expect(line).not.toContain(PNG);
    expect(line).toContain(HASH);
    expect(await readdir(store.blob_dir)).toEqual([HASH]);
    const read = await store.read(handle.id);
    expect(read[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { ...SHOT, blob: HASH },
      ],
    });
    // the reopened handle holds the reference; the resumed history holds the bytes: the same
    const reopened = await store.open(handle.id);
    expect(common_prefix(reopened.state.slots, read)).toBe(2);
    await reopened.close();
  });

  it('exports a stored picture as a link to its blob, and search never reads the bytes', async () => {
    const store = new SessionStore({ session_dir: join(dir, '.lich', 'sessions') });
    const handle = await store.create(NEW);
    const message: Message = { role: 'user', content: [{ type: 'text', text: 'look' }, SHOT] };
    await handle.append({
      type: 'run_start',
      run: 1,
      max_turns: 5,
      seeded_count: 1,
      kept: 0,
      input: 'look',
    });
    await handle.append({ type: 'message', run: 1, index: 0, source: 'seed', message });
    await handle.close();
    const markdown = await export_markdown(handle.path, { blob_dir: store.blob_dir });
    expect(markdown).toContain(`![shot.png](<${join(store.blob_dir, HASH)}>)`);
    expect(await search_sessions(store.session_dir, 'iVBORw0KGgo')).toEqual([]);
    expect((await search_sessions(store.session_dir, 'shot.png')).length).toBe(1);
  });

  it('sends a picture whose blob is gone as its name, never a crash', async () => {
    const gone: Message = {
      role: 'user',
      content: [{ type: 'image', media_type: 'image/png', blob: HASH, name: 'shot.png' }],
    };
    const [kept] = await resolve_images([gone], join(dir, 'nowhere'));
    expect(kept).toEqual(gone);
    await writeFile(join(dir, HASH), 'not the picture');
    const [damaged] = await resolve_images([gone], dir);
    expect(damaged).toEqual(gone);
  });
});

import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@lich/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from './errors.js';
import { search_sessions } from './search.js';
import { SessionStore } from './store.js';

let dir: string;
let store: SessionStore;
let clock: number;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lich-search-'));
  clock = Date.parse('2025-03-01T10:00:00.000Z');
  store = new SessionStore({
    session_dir: dir,
    now: () => {
      clock += 1000;
      return new Date(clock);
    },
  });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function session(messages: Message[]) {
  const handle = await store.create({ work_dir: '/w', model: 'm', lich_version: '1' });
  await handle.append({
    type: 'run_start',
    run: 1,
    max_turns: 3,
    seeded_count: 1,
    kept: 0,
    input: '',
  });
  for (const [index, message] of messages.entries()) {
    await handle.append({ type: 'message', run: 1, index, source: 'seed', message });
  }
  await handle.close();
  return handle;
}

describe('search_sessions', () => {
  it('finds substrings case-insensitively across sessions, newest first, with lines', async () => {
    const old = await session([
      { role: 'user', content: 'Fix the Parser bug' },
      { role: 'assistant', content: 'ok', reasoning: 'the parser drops quotes' },
    ]);
    const recent = await session([
      { role: 'user', content: 'unrelated' },
      { role: 'user', content: 'parser again' },
    ]);
    const hits = await search_sessions(dir, 'PARSER');
    expect(hits.map((hit) => [hit.session_id, hit.line])).toEqual([
      [recent.id, 4],
      [old.id, 3],
      [old.id, 4],
    ]);
    expect(hits[0]).toMatchObject({
      path: recent.path,
      run: 1,
      record_type: 'message',
      excerpt: 'parser again',
    });
    expect(hits[2]?.message).toMatchObject({
      role: 'assistant',
      reasoning: 'the parser drops quotes',
    });
    expect(await search_sessions(dir, 'PARSER', { case_sensitive: true })).toEqual([]);
    expect(await search_sessions(dir, 'parser', { limit: 1 })).toHaveLength(1);
  });

  it('matches text JSON escapes, and tool call arguments', async () => {
    await session([
      { role: 'user', content: 'say "hi"\nthen leave' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c1', name: 'grep', arguments: '{"pattern":"TODO"}' }],
      },
    ]);
    expect(await search_sessions(dir, '"hi"\nthen')).toHaveLength(1);
    const [hit] = await search_sessions(dir, 'TODO');
    expect(hit?.excerpt).toContain('grep {"pattern":"TODO"}');
  });

  it('supports regular expressions, and refuses a bad one clearly', async () => {
    await session([{ role: 'user', content: 'error code E1234 seen' }]);
    const [hit] = await search_sessions(dir, 'E\\d{4}', { regex: true });
    expect(hit?.excerpt).toBe('error code E1234 seen');
    const error = await search_sessions(dir, '(unclosed', { regex: true }).catch((e: unknown) => e);
    expect(SessionError.is_instance(error) && error.code).toBe('invalid_query');
    await expect(search_sessions(dir, '')).rejects.toThrow('empty');
  });

  it('finds compression summaries and skips damaged lines', async () => {
    const handle = await session([{ role: 'user', content: 'start' }]);
    await appendFile(handle.path, '{"v":1,"type":"message" broken needle\n');
    const summary: Message = { role: 'user', content: 'Summary: the needle was found' };
    await appendFile(
      handle.path,
      `${JSON.stringify({ v: 1, type: 'compress_end', at: 'x', run: 1, ok: true, before_count: 5, after_count: 2, from: 1, to: 4, summary: 'the needle was found', summary_message: summary })}\n`,
    );
    const hits = await search_sessions(dir, 'needle');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ record_type: 'compress_end', line: 5, message: summary });
    expect(hits[0]?.excerpt).toBe('Summary: the needle was found');
  });

  it('cuts long excerpts around the match', async () => {
    await session([{ role: 'user', content: `${'a'.repeat(500)} needle ${'b'.repeat(500)}` }]);
    const [hit] = await search_sessions(dir, 'needle');
    expect(hit?.excerpt.startsWith('…')).toBe(true);
    expect(hit?.excerpt.endsWith('…')).toBe(true);
    expect(hit?.excerpt.length).toBeLessThan(150);
    expect(hit?.excerpt).toContain(' needle ');
  });

  it('finds nothing in a missing folder', async () => {
    expect(await search_sessions(join(dir, 'none'), 'x')).toEqual([]);
  });
});

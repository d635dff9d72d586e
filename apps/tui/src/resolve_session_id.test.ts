import type { SessionInfo } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { resolve_session_id } from './resolve_session_id.js';

const client = (ids: string[]) => ({
  list: async () => ids.map((session_id) => ({ session_id }) as SessionInfo),
});

describe('resolve_session_id', () => {
  it('takes a whole id, or the one id a prefix or a suffix names', async () => {
    const ids = ['2026-12-05-aaaa1111', '2026-12-05-bbbb2222', '2026-12-04-cccc3333'];
    expect(await resolve_session_id(client(ids), '2026-12-05-aaaa1111')).toBe(ids[0]);
    expect(await resolve_session_id(client(ids), 'bbbb2222')).toBe(ids[1]);
    expect(await resolve_session_id(client(ids), '2026-12-04')).toBe(ids[2]);
  });

  it('says how many match when several do, and unknown_session when none does', async () => {
    const ids = ['2026-12-05-aaaa1111', '2026-12-05-bbbb2222'];
    await expect(resolve_session_id(client(ids), '2026-12-05')).rejects.toThrow(
      "2 sessions match '2026-12-05'; give more of the id",
    );
    await expect(resolve_session_id(client(ids), 'zzzz')).rejects.toMatchObject({
      code: 'unknown_session',
    });
  });
});

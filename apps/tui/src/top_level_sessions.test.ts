import type { SessionInfo } from '@lich/agent';
import { describe, expect, it } from 'vitest';
import { top_level_sessions } from './top_level_sessions.js';

const session = (session_id: string, parent_session_id?: string) =>
  ({
    session_id,
    ...(parent_session_id === undefined ? {} : { parent_session_id }),
  }) as SessionInfo;

describe('top_level_sessions', () => {
  it('keeps the sessions a person started and counts the subagents beneath each, at any depth', () => {
    const result = top_level_sessions([
      session('a'),
      session('child', 'a'),
      session('grandchild', 'child'),
      session('orphan', 'gone'),
    ]);
    expect(result.sessions.map((entry) => entry.session_id)).toEqual(['a', 'orphan']);
    expect(result.subagents).toEqual({ a: 2 });
  });

  it('ends on a cycle of parents without losing its sessions', () => {
    const result = top_level_sessions([session('x', 'y'), session('y', 'x')]);
    expect(
      result.sessions.length + Object.values(result.subagents).reduce((a, b) => a + b, 0),
    ).toBe(2);
  });
});

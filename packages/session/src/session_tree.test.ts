import { describe, expect, it } from 'vitest';
import { nest_sessions } from './session_tree.js';

/** A parent with two children (one with a child of its own), and a session with none. */
const SESSIONS = [
  { id: '20260102-000000-000-aaaaaaaa' },
  { id: '20260101-000003-000-cccccccc', parent_session_id: '20260101-000000-000-pppppppp' },
  { id: '20260101-000005-000-gggggggg', parent_session_id: '20260101-000003-000-cccccccc' },
  { id: '20260101-000000-000-pppppppp' },
  { id: '20260101-000001-000-bbbbbbbb', parent_session_id: '20260101-000000-000-pppppppp' },
];

function rows(children: boolean) {
  return nest_sessions(SESSIONS, { children }).map(
    (row) => `${'  '.repeat(row.depth)}${row.session.id.slice(-8)} (${row.descendants})`,
  );
}

describe('nest_sessions', () => {
  it('hides children by default and counts them on their top-level session', () => {
    expect(rows(false)).toEqual(['aaaaaaaa (0)', 'pppppppp (3)']);
  });

  it('with children: each beneath its parent, oldest first, every session once', () => {
    expect(rows(true)).toEqual([
      'aaaaaaaa (0)',
      'pppppppp (3)',
      '  bbbbbbbb (0)',
      '  cccccccc (1)',
      '    gggggggg (0)',
    ]);
  });

  it('keeps a child whose parent is not listed, and breaks a cycle of parents', () => {
    const orphan = { id: 'o', parent_session_id: 'gone' };
    const loop = [
      { id: 'x', parent_session_id: 'y' },
      { id: 'y', parent_session_id: 'x' },
    ];
    const nested = nest_sessions([orphan, ...loop], { children: true });
    expect(nested.map((row) => [row.session.id, row.depth, row.root])).toEqual([
      ['o', 0, 'o'],
      ['x', 0, 'x'],
      ['y', 1, 'x'],
    ]);
  });
});

import { compare_text } from '@lich/core';
/**
 * Sessions as people look for them: the conversations they had, each with the subagents it
 * started beneath it, rather than every child as a peer of its parent.
 */

/** What `nest_sessions` needs of a session. */
export interface NestableSession {
  id: string;
  parent_session_id?: string | undefined;
}

/** One row of a nested listing. */
export interface NestedSession<T extends NestableSession> {
  session: T;
  /** 0 for a session a person started (or a child whose parent is not listed), 1 for its child… */
  depth: number;
  /** How many sessions were started beneath it, at any depth. */
  descendants: number;
  /** The id of the top-level session it sits beneath (its own id at depth 0). */
  root: string;
}

/**
 * `sessions` with each child beneath its parent. The top-level sessions keep the order they came
 * in (a listing's most recently updated first); the children of one parent follow it, oldest
 * first, each with its own children beneath it. With `children: false` (the default) only the
 * top-level rows are returned; `descendants` says what is hidden under each.
 *
 * Contract: pure; every session is returned exactly once with `children: true`. A child whose
 * parent is not in `sessions` (deleted, or another folder's) is a top-level row, never dropped;
 * a cycle of parents (a corrupt file) is broken at the session met first.
 */
export function nest_sessions<T extends NestableSession>(
  sessions: readonly T[],
  options: { children?: boolean } = {},
): NestedSession<T>[] {
  const ids = new Set(sessions.map((session) => session.id));
  const children = new Map<string, T[]>();
  const roots: T[] = [];
  for (const session of sessions) {
    const parent = session.parent_session_id;
    if (parent === undefined || parent === session.id || !ids.has(parent)) {
      roots.push(session);
      continue;
    }
    const list = children.get(parent) ?? [];
    list.push(session);
    children.set(parent, list);
  }
  // the order children were started in: their ids sort by creation time
  for (const list of children.values()) list.sort((a, b) => compare_text(a.id, b.id));
  const placed = new Set<string>();
  const rows: NestedSession<T>[] = [];
  const walk = (session: T, depth: number, root: string): number => {
    placed.add(session.id);
    const row: NestedSession<T> = { session, depth, descendants: 0, root };
    if (options.children === true || depth === 0) rows.push(row);
    for (const child of children.get(session.id) ?? []) {
      if (!placed.has(child.id)) row.descendants += 1 + walk(child, depth + 1, root);
    }
    return row.descendants;
  };
  for (const root of roots) walk(root, 0, root.id);
  // sessions only reachable through a cycle of parents: shown at the top level
  for (const session of sessions) if (!placed.has(session.id)) walk(session, 0, session.id);
  return rows;
}

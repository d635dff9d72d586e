import type { SessionInfo } from '@lich/agent';

/**
 * The sessions a person started, and how many subagents' sessions sit beneath each (a child
 * whose parent is not listed stays, so nothing is lost).
 */
export function top_level_sessions(sessions: readonly SessionInfo[]): {
  sessions: SessionInfo[];
  subagents: Record<string, number>;
} {
  const by_id = new Map(sessions.map((session) => [session.session_id, session]));
  const subagents: Record<string, number> = {};
  const top: SessionInfo[] = [];
  for (const session of sessions) {
    let root: SessionInfo = session;
    for (let hops = 0; hops < sessions.length; hops += 1) {
      const parent =
        root.parent_session_id === undefined ? undefined : by_id.get(root.parent_session_id);
      if (parent === undefined || parent === session) break;
      root = parent;
    }
    if (root === session) top.push(session);
    else subagents[root.session_id] = (subagents[root.session_id] ?? 0) + 1;
  }
  return { sessions: top, subagents };
}

import { list_sessions, read_session } from '@lich/session';

/**
 * The dollars the model calls recorded in `session_dir`'s session files spent on `day`
 * (`2026-12-05`, UTC): what a work dir's daily budget starts from in a new process. Reads only
 * the files written to on that day or later. Calls recorded without a price count nothing.
 * Never rejects: a folder or file it cannot read counts 0.
 */
export async function spent_today(session_dir: string, day: string): Promise<number> {
  let spent = 0;
  const sessions = await list_sessions(session_dir).catch(() => []);
  for (const session of sessions) {
    if (session.updated.slice(0, 10) < day) continue;
    try {
      const { records } = await read_session(session.path);
      for (const record of records) {
        if (record.type !== 'message' || record.source !== 'llm') continue;
        if (record.at.slice(0, 10) !== day) continue;
        if (typeof record.cost_usd === 'number') spent += record.cost_usd;
      }
    } catch {
      // unreadable: counts nothing
    }
  }
  return spent;
}

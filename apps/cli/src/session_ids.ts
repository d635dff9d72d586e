import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { compare_text } from '@lich/core';
import type { SessionSummary } from '@lich/session';
import { UsageError } from './usage_error.js';

/** The shortest prefix of a session's random suffix `resolve_session` accepts. */
const SHORT_PREFIX_MIN = 4;

/**
 * The short id of a session: the random part at the end of its id (`9f2c01ab` of
 * `20250301-142501-123-9f2c01ab`), what `lich sessions list` shows first. An id without that
 * shape is its own short id.
 */
export function short_id(id: string): string {
  const match = /-([0-9a-f]{8})$/.exec(id);
  return match ? (match[1] as string) : id;
}

/** Whether `given` names a session file rather than an id: it has a path separator or `.jsonl`. */
function is_path(given: string): boolean {
  return given.includes('/') || given.includes('\\') || given.endsWith('.jsonl');
}

/**
 * The session `given` names, in `session_dir`. Accepted, in order: the path of its file (as
 * `lich` prints it, absolute or relative to `cwd`; then its folder is used), its full id, its
 * short id (the random suffix), or a unique prefix of either (a prefix of the short id needs at
 * least 4 characters). Throws a UsageError (exit 2) when none or several match.
 */
export async function resolve_session(
  session_dir: string,
  given: string,
  command: string,
  cwd: string = process.cwd(),
): Promise<SessionSummary> {
  const { list_sessions } = await import('@lich/session');
  let folder = session_dir;
  let wanted = given.trim();
  if (is_path(wanted)) {
    const path = isAbsolute(wanted) ? wanted : resolve(cwd, wanted);
    folder = dirname(path);
    wanted = basename(path).replace(/\.jsonl$/, '');
  }
  const sessions = await list_sessions(folder);
  const exact = sessions.find((session) => session.id === wanted);
  if (exact) return exact;
  const by_short = sessions.filter((session) => short_id(session.id) === wanted);
  if (by_short.length === 1) return by_short[0] as SessionSummary;
  const matches = sessions.filter(
    (session) =>
      session.id.startsWith(wanted) ||
      (wanted.length >= SHORT_PREFIX_MIN && short_id(session.id).startsWith(wanted)),
  );
  if (matches.length === 1) return matches[0] as SessionSummary;
  if (matches.length === 0) {
    const short =
      wanted.length < SHORT_PREFIX_MIN
        ? `; an id prefix needs at least ${SHORT_PREFIX_MIN} characters`
        : '';
    throw new UsageError(
      `no session '${given}' in ${folder}${short} (see lich sessions list)`,
      command,
    );
  }
  throw new UsageError(
    `'${given}' matches ${matches.length} sessions: ${matches
      .slice(0, 5)
      .map((session) => short_id(session.id))
      .join(', ')}${matches.length > 5 ? ', …' : ''}; give more of the id`,
    command,
  );
}

/**
 * The error to show for a session that could not be read: a file with bad lines says to run
 * `lich sessions repair`, never a library option; anything else is returned as it is.
 */
export async function session_read_error(
  error: unknown,
  summary: SessionSummary,
): Promise<unknown> {
  const { SessionError } = await import('@lich/session');
  if (!SessionError.is_instance(error) || error.code !== 'corrupt') return error;
  const detail = /line \d+ is not a valid record[^;]*/.exec(error.message)?.[0] ?? 'a bad line';
  return new Error(
    `session ${short_id(summary.id)} (${summary.path}) is damaged: ${detail}. Run 'lich sessions repair ${short_id(summary.id)}' to move the bad lines to ${summary.path}.corrupt and keep the rest`,
  );
}

/** Runs `work` on a session; a damaged file rejects with the `lich sessions repair` advice. */
export async function reading_session<T>(
  summary: SessionSummary,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw await session_read_error(error, summary);
  }
}

/**
 * The newest readable session of `session_dir` a person started (for `-c` and `sessions resume`
 * without an id; subagents' sessions are passed over), or null.
 */
export async function newest_session(session_dir: string): Promise<SessionSummary | null> {
  const { list_sessions } = await import('@lich/session');
  // a subagent's session is never the conversation a person means to go back to
  const sessions = (await list_sessions(session_dir)).filter(
    (session) => !session.problem && session.parent_session_id === undefined,
  );
  sessions.sort((a, b) => compare_text(b.updated, a.updated));
  return sessions[0] ?? null;
}

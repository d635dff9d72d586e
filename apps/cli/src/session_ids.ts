import type { SessionSummary } from '@lich/session';
import { UsageError } from './usage_error.js';

/**
 * The session `given` names: an exact id, or the one id starting with it. Throws a UsageError
 * (exit 2) when none or several match.
 */
export async function resolve_session(
  session_dir: string,
  given: string,
  command: string,
): Promise<SessionSummary> {
  const { list_sessions } = await import('@lich/session');
  const sessions = await list_sessions(session_dir);
  const exact = sessions.find((session) => session.id === given);
  if (exact) return exact;
  const matches = sessions.filter((session) => session.id.startsWith(given));
  if (matches.length === 1) return matches[0] as SessionSummary;
  if (matches.length === 0) {
    throw new UsageError(
      `no session '${given}' in ${session_dir} (see lich sessions list)`,
      command,
    );
  }
  throw new UsageError(
    `'${given}' matches ${matches.length} sessions: ${matches
      .slice(0, 5)
      .map((session) => session.id)
      .join(', ')}${matches.length > 5 ? ', …' : ''}`,
    command,
  );
}

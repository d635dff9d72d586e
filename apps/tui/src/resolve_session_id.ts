import type { TuiClient } from './client.js';

/**
 * The session `given` names: its whole id, or the one session of the work dir whose id starts or
 * ends with it (`lich tui --resume 3f2a`).
 *
 * Contract: rejects with an error saying how many matched when several do, and with one whose
 * `code` is `unknown_session` when none does.
 */
export async function resolve_session_id(
  client: Pick<TuiClient, 'list'>,
  given: string,
): Promise<string> {
  const sessions = await client.list();
  if (sessions.some((session) => session.session_id === given)) return given;
  const matches = sessions.filter(
    (session) => session.session_id.startsWith(given) || session.session_id.endsWith(given),
  );
  if (matches.length === 1) return matches[0]!.session_id;
  if (matches.length > 1) {
    throw new Error(`${matches.length} sessions match '${given}'; give more of the id`);
  }
  throw Object.assign(
    new Error(`no session '${given}' in this folder (lich sessions list shows them)`),
    { code: 'unknown_session' },
  );
}

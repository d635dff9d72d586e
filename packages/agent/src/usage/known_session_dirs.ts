import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Where the session folders this user's runs wrote to are listed (`lich usage --all`):
 * `$XDG_STATE_HOME/lich/session_dirs.json`, else `~/.local/state/lich/session_dirs.json`; null
 * when neither variable is set.
 */
export function session_dirs_file(
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  const state = env.XDG_STATE_HOME || (env.HOME ? join(env.HOME, '.local', 'state') : undefined);
  return state === undefined ? null : join(state, 'lich', 'session_dirs.json');
}

/** The session folders listed in `file` (none when it is missing or unreadable). Never throws. */
export async function known_session_dirs(file: string): Promise<string[]> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : [];
  } catch {
    return [];
  }
}

/**
 * Adds `session_dir` to the list in `file` when it is not there yet. Best-effort: a failure is
 * ignored (the report of that folder still works with -C). Two processes writing at once may
 * lose one addition, which the next run of that folder adds again.
 */
export async function remember_session_dir(file: string, session_dir: string): Promise<void> {
  try {
    const known = await known_session_dirs(file);
    if (known.includes(session_dir)) return;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify([...known, session_dir], null, 2)}\n`);
  } catch {
    // best-effort
  }
}

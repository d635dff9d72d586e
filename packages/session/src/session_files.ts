import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { error_text, SessionError, system_code } from './errors.js';
import { is_valid_session_id } from './session_id.js';

const SUFFIX = '.jsonl';

/** The file of session `id` in `session_dir`: `<session_dir>/<id>.jsonl`. Does not check `id`. */
export function session_file(session_dir: string, id: string): string {
  return join(session_dir, `${id}${SUFFIX}`);
}

/**
 * The ids of the session files in `session_dir`: the `<id>.jsonl` names whose id is valid, in the
 * order the folder gives them.
 *
 * Contract: a missing folder gives `[]`; any other failure to read it rejects with a
 * `SessionError` (`not_found`) naming the folder.
 */
export async function read_session_ids(session_dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(session_dir);
  } catch (error) {
    if (system_code(error) === 'ENOENT') return [];
    throw new SessionError(
      'not_found',
      `cannot read the session folder ${session_dir}: ${error_text(error)}`,
      { path: session_dir, cause: error },
    );
  }
  return names
    .filter((name) => name.endsWith(SUFFIX))
    .map((name) => name.slice(0, -SUFFIX.length))
    .filter(is_valid_session_id);
}

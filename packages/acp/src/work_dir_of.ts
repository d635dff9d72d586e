import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { acp_errors } from './acp_sdk.js';

/**
 * The work dir a client's `cwd` names. Throws `invalid_params` when it is not an absolute path,
 * does not exist or is not a folder: the editor's mistake, said to it (not an internal error).
 */
export function work_dir_of(cwd: string): string {
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) {
    throw acp_errors.invalid_params(`cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
  // a folder that is not there is the editor's mistake, said to it (not an internal error)
  let is_folder: boolean;
  try {
    is_folder = statSync(cwd).isDirectory();
  } catch {
    throw acp_errors.invalid_params(`cwd ${cwd} does not exist`);
  }
  if (!is_folder) throw acp_errors.invalid_params(`cwd ${cwd} is not a folder`);
  return cwd;
}

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { user_config_path } from '../config/config_file.js';

/** What the person said of a folder. */
export type TrustAnswer = 'trusted' | 'untrusted';

/** A folder's trust: an answer kept for it (or a parent), or `unknown` when none was given. */
export interface FolderTrust {
  state: TrustAnswer | 'unknown';
  /** The folder the answer was kept for (the work dir or a parent); absent when unknown. */
  folder?: string;
}

/** The file the answers are kept in: `trusted_folders.json` in Lich's user config folder. */
export function trust_file_path(env: Readonly<Record<string, string | undefined>>): string {
  return join(dirname(user_config_path(env)), 'trusted_folders.json');
}

async function read_answers(path: string): Promise<Record<string, TrustAnswer>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return {};
  }
  const folders =
    typeof parsed === 'object' && parsed !== null
      ? (parsed as { folders?: unknown }).folders
      : undefined;
  if (typeof folders !== 'object' || folders === null) return {};
  const answers: Record<string, TrustAnswer> = {};
  for (const [folder, answer] of Object.entries(folders)) {
    if (answer === 'trusted' || answer === 'untrusted') answers[folder] = answer;
  }
  return answers;
}

/**
 * The trust of `work_dir`: the answer kept for it or for its nearest parent that has one (trusting
 * a folder trusts what is under it; an `untrusted` answer nearer in wins). Never throws: an
 * unreadable or malformed file counts as no answers.
 *
 * Only this file, in the user's own config folder, holds answers: no project file can make a
 * folder trusted.
 */
export async function folder_trust(
  work_dir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<FolderTrust> {
  const answers = await read_answers(trust_file_path(env));
  let folder = resolve(work_dir);
  for (;;) {
    const answer = answers[folder];
    if (answer !== undefined) return { state: answer, folder };
    const parent = dirname(folder);
    if (parent === folder) return { state: 'unknown' };
    folder = parent;
  }
}

/**
 * Keeps `answer` for `folder` (absolute after resolving), or forgets the folder's answer when
 * `answer` is null. The file is written whole (a temporary file renamed over it), mode 0600.
 */
export async function set_folder_trust(
  folder: string,
  answer: TrustAnswer | null,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const path = trust_file_path(env);
  const answers = await read_answers(path);
  const key = resolve(folder);
  if (answer === null) delete answers[key];
  else answers[key] = answer;
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ folders: answers }, null, 2)}\n`, {
    mode: 0o600,
  });
  await rename(temporary, path);
}

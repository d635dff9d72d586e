import { chmod, lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `lich serve` writes for its clients to find it. */
export interface TokenFile {
  url: string;
  token: string;
  pid: number;
}

/**
 * Where the token file lives: `$XDG_RUNTIME_DIR/lich/serve.json` (a per-user tmpfs that goes
 * away at logout), else the state dir `$XDG_STATE_HOME/lich/serve.json`
 * (`~/.local/state/lich/serve.json`).
 */
export function token_file_path(env: Readonly<Record<string, string | undefined>>): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime !== undefined && runtime !== '') return join(runtime, 'lich', 'serve.json');
  const state = env.XDG_STATE_HOME;
  const base =
    state !== undefined && state !== '' ? state : join(env.HOME ?? homedir(), '.local', 'state');
  return join(base, 'lich', 'serve.json');
}

/**
 * Makes sure the token file's folder is this user's alone: a folder that already existed with
 * rights for others (`chmod 777`: another user could swap `serve.json` and point clients at a
 * server of theirs) is made 0700; one that is a link or belongs to someone else is refused.
 */
async function own_private_folder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const info = await lstat(folder);
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new Error(
      `the token folder ${folder} is not a plain folder (a link?): refusing to write the token there`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(
      `the token folder ${folder} belongs to another user (uid ${info.uid}): refusing to write the token there`,
    );
  }
  if ((info.mode & 0o077) !== 0) await chmod(folder, 0o700);
}

/**
 * Writes the token file with mode 0600 (its folder 0700, tightened when it was not), atomically:
 * the content goes to a fresh file created 0600 (never readable by others, not even for a
 * moment), which then replaces the old one. Rejects when the folder is a link or another user's.
 */
export async function write_token_file(path: string, content: TokenFile): Promise<void> {
  const folder = dirname(path);
  await own_private_folder(folder);
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`);
  } finally {
    await handle.close();
  }
  // the mode given to open is masked by the umask; make it exact
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** Reads the token file; null when there is none or it cannot be read. */
export async function read_token_file(path: string): Promise<TokenFile | null> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as Partial<TokenFile>;
    if (
      typeof value.url !== 'string' ||
      typeof value.token !== 'string' ||
      typeof value.pid !== 'number'
    ) {
      return null;
    }
    return { url: value.url, token: value.token, pid: value.pid };
  } catch {
    return null;
  }
}

/** Removes the token file when it is still `pid`'s (another server may have replaced it). */
export async function remove_token_file(path: string, pid: number): Promise<void> {
  const current = await read_token_file(path);
  if (current !== null && current.pid === pid) await rm(path, { force: true });
}

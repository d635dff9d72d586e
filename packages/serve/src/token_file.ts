import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
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
 * Writes the token file with mode 0600 (its folder 0700), atomically: the content goes to a
 * fresh file created 0600 (never readable by others, not even for a moment), which then
 * replaces the old one.
 */
export async function write_token_file(path: string, content: TokenFile): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true, mode: 0o700 });
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

import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, sep } from 'node:path';

/**
 * The paths of the unix sockets bound on this machine, as `/proc/net/unix` lists them (the
 * sockets of Lich's own network namespace: every service of the machine, in practice). Abstract
 * sockets (`@name`) and sockets bound by a relative name are left out: no path names them.
 *
 * Contract: never throws; `[]` where `/proc/net/unix` cannot be read (not Linux).
 */
export function bound_unix_socket_paths(text?: string): string[] {
  let listing = text;
  if (listing === undefined) {
    try {
      listing = readFileSync('/proc/net/unix', 'latin1');
    } catch {
      return [];
    }
  }
  const paths = new Set<string>();
  for (const line of listing.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is what follows the 7th field
    const match = /^\s*\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s(.+)$/.exec(line);
    const path = match?.[1];
    if (path?.startsWith('/')) paths.add(path);
  }
  return [...paths];
}

/** A `sandbox.allow_unix_sockets` entry as an absolute path: `~/` from home, relative from the work dir. */
export function socket_entry_path(entry: string, work_dir: string): string {
  if (entry === '~') return homedir();
  if (entry.startsWith('~/')) return join(homedir(), entry.slice(2));
  return isAbsolute(entry) ? resolve(entry) : resolve(work_dir, entry);
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function is_socket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/** True when `path` is `root` or lies under it. */
export function is_under(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The sockets a sandboxed command must not reach when `sandbox.allow_unix_sockets` lists some
 * (then the seccomp filter, which refuses every unix socket, is not loaded): every bound socket of
 * the machine but those allowed (an entry that is a folder allows the sockets under it), as real
 * paths that exist as sockets now, each to be covered with an empty file.
 *
 * Contract: never throws; reads `/proc/net/unix` (or `listing`) once.
 */
export function unix_socket_masks(
  allowed: readonly string[],
  work_dir: string,
  listing?: string,
): string[] {
  const allowed_real = allowed.map((entry) => real(socket_entry_path(entry, work_dir)));
  const masks = new Set<string>();
  for (const path of bound_unix_socket_paths(listing)) {
    const real_path = real(path);
    if (allowed_real.some((root) => is_under(real_path, root))) continue;
    if (is_socket(real_path)) masks.add(real_path);
  }
  return [...masks];
}

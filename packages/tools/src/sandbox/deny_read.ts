import { lstatSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { is_under } from './unix_sockets.js';

/**
 * What commands and the file tools may not read by default: the places credentials live in a
 * home folder. `~/` is the home folder; `$XDG_CONFIG_HOME` and `$XDG_RUNTIME_DIR` entries are
 * added where those are set elsewhere (see `deny_read_paths`). One list for both: the sandbox
 * masks these paths (an empty read-only folder, or an empty file, over each), and the file tools
 * refuse them even inside the work dir.
 */
export const DEFAULT_DENY_READ: readonly string[] = Object.freeze([
  // keys and agents
  '~/.ssh',
  '~/.gnupg',
  '~/.password-store',
  '~/.local/share/keyrings',
  // cloud and cluster command lines
  '~/.aws',
  '~/.azure',
  '~/.config/gcloud',
  '~/.oci',
  '~/.kube',
  '~/.docker',
  '~/.config/containers/auth.json',
  '~/.terraform.d/credentials.tfrc.json',
  '~/.vault-token',
  // network, package registries and git hosts
  '~/.netrc',
  '~/.npmrc',
  '~/.yarnrc.yml',
  '~/.pypirc',
  '~/.config/pip/pip.conf',
  '~/.cargo/credentials',
  '~/.cargo/credentials.toml',
  '~/.gem/credentials',
  '~/.git-credentials',
  '~/.config/git/credentials',
  '~/.config/gh',
  '~/.config/hub',
  '~/.config/glab-cli',
  // databases
  '~/.pgpass',
  '~/.my.cnf',
  '~/.mylogin.cnf',
  // Lich's own config (keys of MCP servers) and the `lich serve` token
  '~/.config/lich',
  '~/.local/state/lich',
  // shell and tool histories
  '~/.bash_history',
  '~/.zsh_history',
  '~/.zhistory',
  '~/.history',
  '~/.sh_history',
  '~/.local/share/fish/fish_history',
  '~/.python_history',
  '~/.node_repl_history',
  '~/.psql_history',
  '~/.mysql_history',
  '~/.sqlite_history',
  '~/.rediscli_history',
  '~/.irb_history',
  '~/.lesshst',
]);

/** What `deny_read_paths` reads from a sandbox config. */
export interface DenyReadConfig {
  deny_read: readonly string[];
  allow_read: readonly string[];
}

/** An entry as an absolute path: `~` from `home`, relative ones from `work_dir`. */
export function entry_path(entry: string, work_dir: string, home = homedir()): string {
  if (entry === '~') return home;
  if (entry.startsWith('~/')) return join(home, entry.slice(2));
  return isAbsolute(entry) ? resolve(entry) : resolve(work_dir, entry);
}

/** One path kept from commands and the file tools. */
export interface DeniedPath {
  /** As configured (`~/.ssh`), for messages. */
  entry: string;
  /** Its real absolute path. */
  path: string;
  kind: 'dir' | 'file';
}

function real_kind(path: string): { path: string; kind: 'dir' | 'file' } | undefined {
  // most entries do not exist: one lstat without an exception tells, before any realpath
  if (lstatSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  // a mount needs the real path: a link on the way (a linked home folder) is resolved
  try {
    const real = realpathSync.native(path);
    return { path: real, kind: lstatSync(real).isDirectory() ? 'dir' : 'file' };
  } catch {
    return undefined;
  }
}

/**
 * The paths to keep from commands and file tools: `DEFAULT_DENY_READ` and `deny_read`, plus
 * Lich's folders under `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME` and `$XDG_RUNTIME_DIR` when set,
 * less what `allow_read` names (an `allow_read` entry lifts every denied path it equals or
 * contains). Only paths that exist are returned, as real paths (a link is followed, so its target
 * is masked), and never one that holds the work dir (masking it would hide the work).
 *
 * Contract: never throws; a few `lstat`s per entry.
 */
export function deny_read_paths(
  config: DenyReadConfig,
  work_dir: string,
  env: NodeJS.ProcessEnv = process.env,
): DeniedPath[] {
  const home = homedir();
  const entries = [...DEFAULT_DENY_READ, ...config.deny_read];
  if (env.XDG_CONFIG_HOME) entries.push(join(env.XDG_CONFIG_HOME, 'lich'));
  if (env.XDG_STATE_HOME) entries.push(join(env.XDG_STATE_HOME, 'lich'));
  if (env.XDG_RUNTIME_DIR) entries.push(join(env.XDG_RUNTIME_DIR, 'lich'));
  const lifted = config.allow_read.map((entry) => entry_path(entry, work_dir, home));
  const lifted_real = lifted.map((path) => real_kind(path)?.path ?? path);
  const found = new Map<string, DeniedPath>();
  for (const entry of entries) {
    const absolute = entry_path(entry, work_dir, home);
    if (lifted.some((root) => is_under(absolute, root))) continue;
    const resolved = real_kind(absolute);
    if (resolved === undefined || found.has(resolved.path)) continue;
    if (lifted_real.some((root) => is_under(resolved.path, root))) continue;
    if (is_under(work_dir, resolved.path)) continue;
    found.set(resolved.path, { entry, ...resolved });
  }
  return [...found.values()];
}

/**
 * The denied path that `path` (a real absolute path) lies in, if any.
 *
 * Contract: pure.
 */
export function denied_by(path: string, denied: readonly DeniedPath[]): DeniedPath | undefined {
  return denied.find((entry) => is_under(path, entry.path));
}

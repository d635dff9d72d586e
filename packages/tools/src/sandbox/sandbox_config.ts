import { DEFAULT_MAX_PROCESSES } from './process_limit.js';

/**
 * `auto`: sandbox commands where the OS allows it, else run them with one warning; `required`:
 * refuse to run a command that cannot be sandboxed; `off`: never sandbox.
 */
export type SandboxMode = 'auto' | 'required' | 'off';

/** `false`: no network; `true`: the host's network; a list: only these hosts, through a proxy. */
export type SandboxNetwork = boolean | readonly string[];

/** How `terminal` and `run_tests` confine the commands they run. */
export interface SandboxConfig {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Folders writable besides the work dir and the private temp dir (`~/` and work-dir-relative allowed). */
  writable: readonly string[];
  /**
   * Environment variables passed to commands besides the base set (`BASE_ENV_NAMES`); a name may
   * end in `*` to pass every name it starts.
   */
  env_passthrough: readonly string[];
  /**
   * Unix sockets commands may connect to (docker, a dev database); a folder allows the sockets
   * under it. Empty (default): none, enforced by a seccomp filter.
   */
  allow_unix_sockets: readonly string[];
  /** Paths kept from commands and the file tools besides `DEFAULT_DENY_READ`. */
  deny_read: readonly string[];
  /** Paths of the deny lists made readable again (an entry lifts every denied path under it). */
  allow_read: readonly string[];
  /** Processes and threads one command may have at once; 0 for no limit. */
  max_processes: number;
}

/** Sandboxed where possible, no network, nothing writable beyond the work dir and a temp dir. */
export const DEFAULT_SANDBOX_CONFIG: Readonly<SandboxConfig> = Object.freeze({
  mode: 'auto',
  network: false,
  writable: Object.freeze([]) as readonly string[],
  env_passthrough: Object.freeze([]) as readonly string[],
  allow_unix_sockets: Object.freeze([]) as readonly string[],
  deny_read: Object.freeze([]) as readonly string[],
  allow_read: Object.freeze([]) as readonly string[],
  max_processes: DEFAULT_MAX_PROCESSES,
});

const MODES = new Set<string>(['auto', 'required', 'off']);

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((entry): entry is string => typeof entry === 'string' && entry !== '')
    : [];
}

/**
 * Reads a sandbox config from anything (a config file's `sandbox` object, a tool context): the
 * defaults fill what is missing.
 *
 * Contract: pure, never throws; a value it cannot read is replaced by its default, which is never
 * weaker than what was meant (an unknown `mode` is `auto`, an unreadable `network` is `false`, an
 * unreadable `max_processes` is the default limit).
 */
export function read_sandbox_config(value: unknown): SandboxConfig {
  if (value === null || typeof value !== 'object') return { ...DEFAULT_SANDBOX_CONFIG };
  const record = value as Record<string, unknown>;
  const mode =
    typeof record.mode === 'string' && MODES.has(record.mode)
      ? (record.mode as SandboxMode)
      : 'auto';
  let network: SandboxNetwork = false;
  if (record.network === true) network = true;
  else if (Array.isArray(record.network)) network = strings(record.network);
  const max = record.max_processes;
  return {
    mode,
    network,
    writable: strings(record.writable),
    env_passthrough: strings(record.env_passthrough),
    allow_unix_sockets: strings(record.allow_unix_sockets),
    deny_read: strings(record.deny_read),
    allow_read: strings(record.allow_read),
    max_processes:
      typeof max === 'number' && Number.isInteger(max) && max >= 0 ? max : DEFAULT_MAX_PROCESSES,
  };
}

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
}

/** Sandboxed where possible, no network, nothing writable beyond the work dir and a temp dir. */
export const DEFAULT_SANDBOX_CONFIG: Readonly<SandboxConfig> = Object.freeze({
  mode: 'auto',
  network: false,
  writable: Object.freeze([]) as readonly string[],
});

const MODES = new Set<string>(['auto', 'required', 'off']);

/**
 * Reads a sandbox config from anything (a config file's `sandbox` object, a tool context): the
 * defaults fill what is missing.
 *
 * Contract: pure, never throws; a value it cannot read is replaced by its default, which is never
 * weaker than what was meant (an unknown `mode` is `auto`, an unreadable `network` is `false`).
 */
export function read_sandbox_config(value: unknown): SandboxConfig {
  if (value === null || typeof value !== 'object') return { ...DEFAULT_SANDBOX_CONFIG };
  const record = value as { mode?: unknown; network?: unknown; writable?: unknown };
  const mode =
    typeof record.mode === 'string' && MODES.has(record.mode)
      ? (record.mode as SandboxMode)
      : 'auto';
  let network: SandboxNetwork = false;
  if (record.network === true) network = true;
  else if (Array.isArray(record.network)) {
    network = record.network.filter(
      (host): host is string => typeof host === 'string' && host !== '',
    );
  }
  const writable = Array.isArray(record.writable)
    ? record.writable.filter((path): path is string => typeof path === 'string' && path !== '')
    : [];
  return { mode, network, writable };
}

import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { child_process_module } from '../shell/child_process_module.js';

/** What confines commands on this machine. */
export type SandboxKind = 'bwrap' | 'sandbox-exec';

/** One thing `probe_sandbox` tried, for `lich sandbox check`. */
export interface SandboxCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** What bubblewrap can do here. */
export interface BwrapFeatures {
  /** `--unshare-user` works (false: a setuid bwrap without user namespaces). */
  user_namespace: boolean;
  /** `--disable-userns` is known (bwrap 0.8+): no user namespace can be made inside. */
  disable_userns: boolean;
}

/** What `probe_sandbox` found. */
export interface SandboxSupport {
  /** The sandbox that runs here, or `undefined` when none can. */
  kind?: SandboxKind;
  /** Absolute path of its program. */
  program?: string;
  version?: string;
  bwrap?: BwrapFeatures;
  /** One sentence: what confines commands, or why nothing can. */
  reason: string;
  checks: SandboxCheck[];
}

interface Quick {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: string;
}

function run_quick(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Quick> {
  return new Promise((resolve) => {
    child_process_module().execFile(
      file,
      args,
      { env, timeout: 10_000, encoding: 'utf8', cwd: '/' },
      (error, stdout, stderr) => {
        const code =
          error === null ? 0 : typeof error.code === 'number' ? error.code : error ? null : 0;
        resolve({
          code,
          stdout: String(stdout),
          stderr: String(stderr),
          ...(error && typeof error.code !== 'number' ? { error: error.message } : {}),
        });
      },
    );
  });
}

/** The absolute path of `name` on `path_env` (a PATH value), or `undefined`. */
export async function find_program(
  name: string,
  path_env: string | undefined,
): Promise<string | undefined> {
  for (const folder of (path_env ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The flags every probe and every sandboxed command shares (besides mounts). */
export const BWRAP_BASE_FLAGS = [
  '--unshare-pid',
  '--unshare-ipc',
  '--die-with-parent',
  '--new-session',
  '--as-pid-1',
  '--cap-drop',
  'ALL',
] as const;

function bwrap_probe_args(features: BwrapFeatures): string[] {
  return [
    ...(features.user_namespace ? ['--unshare-user'] : []),
    ...(features.user_namespace && features.disable_userns ? ['--disable-userns'] : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-net',
    ...BWRAP_BASE_FLAGS,
    '--',
    'true',
  ];
}

async function read_sysctl(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** Why bwrap could not start, in words, from its message and the kernel's settings. */
async function explain_bwrap_failure(stderr: string): Promise<string> {
  const message = stderr.trim().split('\n').at(-1) ?? '';
  const facts: string[] = [];
  const clone = await read_sysctl('/proc/sys/kernel/unprivileged_userns_clone');
  if (clone === '0') facts.push('kernel.unprivileged_userns_clone is 0');
  const apparmor = await read_sysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
  if (apparmor === '1') facts.push('AppArmor restricts unprivileged user namespaces');
  const max = await read_sysctl('/proc/sys/user/max_user_namespaces');
  if (max === '0') facts.push('user.max_user_namespaces is 0');
  if (/proc/i.test(message)) {
    facts.push('a fresh /proc cannot be mounted here (a container that masks /proc?)');
  } else if (/namespace|uid map|Operation not permitted|Permission denied/i.test(message)) {
    if (facts.length === 0) {
      facts.push('namespaces are not allowed here (a container without them, or a seccomp policy)');
    }
  }
  return facts.length > 0 ? `${message} (${facts.join('; ')})` : message || 'bwrap failed';
}

async function probe_bwrap(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  const checks: SandboxCheck[] = [];
  const program = await find_program('bwrap', env.PATH);
  if (program === undefined) {
    checks.push({ name: 'bwrap on PATH', ok: false, detail: 'not found' });
    return {
      reason:
        'bubblewrap (bwrap) is not installed; install the bubblewrap package to sandbox commands',
      checks,
    };
  }
  checks.push({ name: 'bwrap on PATH', ok: true, detail: program });
  const version = (await run_quick(program, ['--version'], env)).stdout.trim();
  const help = await run_quick(program, ['--help'], env);
  const known = `${help.stdout}${help.stderr}`;
  const missing = ['--as-pid-1', '--die-with-parent', '--cap-drop'].filter(
    (flag) => !known.includes(flag),
  );
  if (missing.length > 0) {
    checks.push({ name: 'bwrap flags', ok: false, detail: `missing ${missing.join(', ')}` });
    return {
      program,
      version,
      reason: `${version || 'bwrap'} is too old: it lacks ${missing.join(', ')} (bubblewrap 0.5 or later needed)`,
      checks,
    };
  }
  const disable_userns = known.includes('--disable-userns');
  let last_failure = '';
  for (const user_namespace of [true, false]) {
    const features: BwrapFeatures = { user_namespace, disable_userns };
    const tried = await run_quick(program, bwrap_probe_args(features), env);
    const name = user_namespace ? 'bwrap with a user namespace' : 'bwrap without a user namespace';
    if (tried.code === 0) {
      checks.push({ name, ok: true, detail: 'started' });
      return {
        kind: 'bwrap',
        program,
        version,
        bwrap: features,
        reason: `${version || 'bwrap'}: read-only root, writable work dir, PID, IPC${user_namespace ? ', user' : ''} and network namespaces`,
        checks,
      };
    }
    last_failure = await explain_bwrap_failure(tried.stderr || tried.error || '');
    checks.push({ name, ok: false, detail: last_failure });
  }
  return { program, version, reason: `bwrap cannot start here: ${last_failure}`, checks };
}

async function probe_seatbelt(env: NodeJS.ProcessEnv): Promise<SandboxSupport> {
  const program = '/usr/bin/sandbox-exec';
  const checks: SandboxCheck[] = [];
  try {
    await access(program, constants.X_OK);
  } catch {
    checks.push({ name: 'sandbox-exec', ok: false, detail: `${program} not found` });
    return { reason: `${program} is missing`, checks };
  }
  const tried = await run_quick(
    program,
    ['-p', '(version 1)(allow default)', '/usr/bin/true'],
    env,
  );
  if (tried.code !== 0) {
    const detail = tried.stderr.trim() || tried.error || `exit code ${tried.code}`;
    checks.push({ name: 'sandbox-exec', ok: false, detail });
    return { program, reason: `sandbox-exec cannot start here: ${detail}`, checks };
  }
  checks.push({ name: 'sandbox-exec', ok: true, detail: 'started' });
  return {
    kind: 'sandbox-exec',
    program,
    reason:
      'sandbox-exec (Seatbelt): writes only to the work dir and a temp dir, network as configured',
    checks,
  };
}

const cache = new Map<string, Promise<SandboxSupport>>();

/**
 * Finds out which sandbox can run commands here: bubblewrap on Linux (tried with a user
 * namespace, then without, as a setuid bwrap needs), `sandbox-exec` on macOS, none elsewhere.
 *
 * Contract: never rejects; the answer is cached per platform and PATH (the probe starts bwrap
 * once or twice); `refresh` probes again. `reason` says what runs or why nothing can, `checks`
 * lists each step.
 */
export function probe_sandbox(
  options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; refresh?: boolean } = {},
): Promise<SandboxSupport> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const key = `${platform}\0${env.PATH ?? ''}`;
  const cached = cache.get(key);
  if (cached !== undefined && options.refresh !== true) return cached;
  const probing = (async (): Promise<SandboxSupport> => {
    try {
      if (platform === 'linux') return await probe_bwrap(env);
      if (platform === 'darwin') return await probe_seatbelt(env);
      return { reason: `no sandbox is known for ${platform}`, checks: [] };
    } catch (error) {
      return {
        reason: `the sandbox probe failed: ${error instanceof Error ? error.message : String(error)}`,
        checks: [],
      };
    }
  })();
  cache.set(key, probing);
  return probing;
}

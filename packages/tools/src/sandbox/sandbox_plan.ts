import { BWRAP_BASE_FLAGS, type BwrapFeatures } from './sandbox_support.js';

/**
 * What a sandbox lets one command do, in absolute real paths. Both the bubblewrap arguments and
 * the Seatbelt profile are made from it, so they mean the same.
 */
export interface SandboxPlan {
  work_dir: string;
  /** The command's private temp dir (made for the call, removed after it). */
  temp_dir: string;
  /** More folders writable, from `sandbox.writable` (existing ones only). */
  writable: readonly string[];
  /** Folders bound onto themselves so they cannot be renamed away (`.git`). */
  pinned: readonly string[];
  /** Read-only even though they are inside the work dir (`.git/hooks`, `.git/config`, `.lich`). */
  read_only: readonly string[];
  /**
   * `true`: the host's network; `false`: none; `{ socket }`: none but the allow-list proxy on this
   * unix socket (inside `temp_dir`, so bound into a bubblewrap sandbox); `{ port }`: none but the
   * proxy on this loopback port (`sandbox-exec`, which has no network namespace).
   */
  network: boolean | { socket: string } | { port: number };
}

/**
 * The bubblewrap arguments for a plan, up to and including `--`; the command follows.
 *
 * Contract: pure. The root is bound read-only, `/dev` and `/proc` are fresh and minimal (the
 * `/proc` of a new PID namespace shows only the sandbox's own processes, so no parent's
 * environment), `/dev/shm` is a private tmpfs; then the writable folders, the work dir and the
 * temp dir read-write; then the pinned and read-only paths (later mounts win). Every namespace
 * but the network's (kept only for `network: true`) is new, capabilities are dropped, the command
 * is PID 1 of its namespace (when it exits, everything it started is killed) and dies with Lich.
 */
export function bwrap_arguments(plan: SandboxPlan, features: BwrapFeatures): string[] {
  const args: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--tmpfs', '/dev/shm'];
  args.push('--proc', '/proc');
  for (const path of plan.writable) args.push('--bind-try', path, path);
  args.push('--bind', plan.work_dir, plan.work_dir);
  args.push('--bind', plan.temp_dir, plan.temp_dir);
  for (const path of plan.pinned) args.push('--bind', path, path);
  for (const path of plan.read_only) args.push('--ro-bind', path, path);
  if (features.user_namespace) {
    args.push('--unshare-user');
    if (features.disable_userns) args.push('--disable-userns');
  }
  if (plan.network !== true) args.push('--unshare-net');
  args.push('--unshare-uts', ...BWRAP_BASE_FLAGS, '--chdir', plan.work_dir, '--');
  return args;
}

/** A path as a Seatbelt string literal. */
function quoted(path: string): string {
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The `sandbox-exec` (Seatbelt) profile for a plan: the same meaning as `bwrap_arguments`.
 *
 * Contract: pure. Everything is denied but: running programs, reading files, sysctl and Mach
 * lookups processes need; writing under the work dir, the temp dir and the writable folders,
 * except under the read-only paths (`require-not`, so no rule order matters); writing the
 * terminal and null devices; signals within the sandbox. A pinned folder (`.git`) may be written
 * inside but not renamed or replaced itself, which is what binding it onto itself does on Linux. Network: all of it for `true`, only the
 * proxy's loopback port for `{ port }` (its unix socket for `{ socket }`), none for `false`. Macs have no PID namespace: the process
 * tree is ended by the process-group and marker reaper instead.
 */
export function seatbelt_profile(plan: SandboxPlan): string {
  const writable = [plan.work_dir, plan.temp_dir, ...plan.writable];
  // a pinned folder may be written inside, but not renamed, removed or made anew itself
  const kept = [
    ...plan.read_only.map((path) => `(subpath ${quoted(path)})`),
    ...plan.pinned.map((path) => `(literal ${quoted(path)})`),
  ];
  const lines = [
    '(version 1)',
    '(deny default)',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow file-read*)',
    '(allow sysctl-read)',
    '(allow mach-lookup)',
    '(allow ipc-posix-shm)',
    '(allow ipc-posix-sem)',
    '(allow pseudo-tty)',
    '(allow file-ioctl)',
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))',
    '(allow file-write* (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
    '(allow file-write*',
    '  (require-all',
    `    (require-any ${writable.map((path) => `(subpath ${quoted(path)})`).join(' ')})`,
    ...(kept.length > 0 ? [`    (require-not (require-any ${kept.join(' ')}))`] : []),
    '  ))',
  ];
  if (plan.network === true) lines.push('(allow network*)');
  else if (typeof plan.network === 'object') {
    lines.push(
      'port' in plan.network
        ? `(allow network-outbound (remote ip "localhost:${plan.network.port}"))`
        : `(allow network-outbound (remote unix-socket (path-literal ${quoted(plan.network.socket)})))`,
    );
  }
  return `${lines.join('\n')}\n`;
}

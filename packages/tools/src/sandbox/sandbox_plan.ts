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
  /** Credential stores kept from the command (`deny_read_paths`): an empty read-only mask over each. */
  masks?: readonly { path: string; kind: 'dir' | 'file' }[];
  /** Unix sockets covered with an empty file (only when some are allowed: see `unix_socket_masks`). */
  socket_masks?: readonly string[];
  /**
   * Unix sockets: `'none'` refuses every one (bubblewrap loads the seccomp filter from the file
   * descriptor `seccomp_fd`); a list allows those paths only (Seatbelt; under bubblewrap the
   * others are masked).
   */
  unix_sockets?: 'none' | readonly string[];
  /** The file descriptor bubblewrap reads the seccomp filter from. */
  seccomp_fd?: number;
  /**
   * A start gate: bubblewrap writes its sandbox's pid to `info_fd` and makes it wait for a byte
   * on `block_fd` (so Lich can put it in a cgroup before it runs anything).
   */
  gate?: { info_fd: number; block_fd: number };
}

/**
 * The bubblewrap arguments for a plan, up to and including `--`; the command follows.
 *
 * Contract: pure. The root is bound read-only, `/dev` and `/proc` are fresh and minimal (the
 * `/proc` of a new PID namespace shows only the sandbox's own processes, so no parent's
 * environment), `/dev/shm` is a private tmpfs; then the writable folders, the work dir and the
 * temp dir read-write; then the pinned and read-only paths, then an empty read-only folder over
 * each masked folder and `/dev/null` over each masked file and socket (later mounts win); the
 * seccomp filter from `seccomp_fd` when given. Every namespace
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
  for (const mask of plan.masks ?? []) {
    if (mask.kind === 'dir') args.push('--tmpfs', mask.path, '--remount-ro', mask.path);
    else args.push('--ro-bind', '/dev/null', mask.path);
  }
  for (const path of plan.socket_masks ?? []) args.push('--ro-bind', '/dev/null', path);
  if (plan.seccomp_fd !== undefined) args.push('--seccomp', String(plan.seccomp_fd));
  if (plan.gate !== undefined) {
    args.push('--info-fd', String(plan.gate.info_fd), '--block-fd', String(plan.gate.block_fd));
  }
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
 * inside but not renamed or replaced itself, which is what binding it onto itself does on Linux.
 * Masked paths are not readable. Network: IP for `true` (no unix socket), only the proxy's
 * loopback port for `{ port }` (its unix socket for `{ socket }`), none for `false`; unix sockets
 * only those `unix_sockets` lists. Macs have no PID namespace: the process tree is ended by the
 * process-group and marker reaper instead.
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
    ...(plan.masks ?? []).map((mask) =>
      mask.kind === 'dir'
        ? `(deny file-read* (subpath ${quoted(mask.path)}))`
        : `(deny file-read* (literal ${quoted(mask.path)}))`,
    ),
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
  if (plan.network === true) {
    // the network, but no unix socket that is not allowed: those go by path below
    lines.push('(allow network* (remote ip))', '(allow network* (local ip))');
  } else if (typeof plan.network === 'object') {
    lines.push(
      'port' in plan.network
        ? `(allow network-outbound (remote ip "localhost:${plan.network.port}"))`
        : `(allow network-outbound (remote unix-socket (path-literal ${quoted(plan.network.socket)})))`,
    );
  }
  if (Array.isArray(plan.unix_sockets)) {
    for (const path of plan.unix_sockets) {
      lines.push(`(allow network-outbound (remote unix-socket (subpath ${quoted(path)})))`);
    }
  }
  return `${lines.join('\n')}\n`;
}

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmdirSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { collect_tree } from '../shell/process_list.js';
import { type DeniedPath, deny_read_paths } from './deny_read.js';
import { audit_git_files, git_protection } from './git_protect.js';
import { LIMIT_POLL_MS, make_process_limit, type ProcessLimit } from './process_limit.js';
import type { SandboxConfig } from './sandbox_config.js';
import { FORWARDED_CONNECTION, FORWARDER_SOURCE, SANDBOX_PROXY_PORT } from './sandbox_forwarder.js';
import { bwrap_arguments, type SandboxPlan, seatbelt_profile } from './sandbox_plan.js';
import { type AllowListProxy, start_allow_list_proxy } from './sandbox_proxy.js';
import type { SandboxKind, SandboxSupport } from './sandbox_support.js';
import { unix_socket_filter } from './seccomp_filter.js';
import { is_under, socket_entry_path, unix_socket_masks } from './unix_sockets.js';

/** A command ready to run under the sandbox: what to start, and what to check and undo after. */
export interface SandboxedCommand {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandbox: SandboxKind;
  /** Bytes for file descriptors 3, 4, … (the seccomp filter). */
  inputs: Buffer[];
  /** Takes the connections the proxy forwarder hands over (a host list under bubblewrap). */
  on_message?: (message: unknown, handle: unknown) => void;
  /** bubblewrap's start gate: the sandbox's pid goes into the cgroup before it runs. */
  gate?: { on_info(info: unknown): void };
  /** The process limit's watch, when there is one. */
  watch?: { interval_ms: number; check(pid: number): string | undefined };
  proxy?: AllowListProxy;
  /** The credential stores kept from the command. */
  masked: DeniedPath[];
  /**
   * How unix sockets are kept: `seccomp` (none reachable), `masks` (only the allowed ones, every
   * other bound socket covered), `seatbelt` (the profile allows the allowed ones only).
   */
  unix_sockets: 'seccomp' | 'masks' | 'seatbelt';
  /** The sockets covered (`masks`). */
  socket_masks: string[];
  /** The process limit, when there is one. */
  limit?: Pick<ProcessLimit, 'kind' | 'max'>;
  /** After the command: git files it planted, removed (relative paths). Never throws. */
  audit(): string[];
  /** Removes the temp dir, stops the proxy, releases the cgroup. Never rejects. */
  cleanup(): Promise<void>;
}

let temp_root: string | undefined;
const filter = { made: false, bytes: undefined as Buffer | undefined };

/** A path from `sandbox.writable`: `~/…` from the home directory, relative ones from the work dir. */
function writable_path(path: string, work_dir: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return resolve(work_dir, path);
}

function real_or_undefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How many processes and threads a command's tree has now (the `rlimit` kind's watch): a
 * synchronous scan of `/proc`, about a millisecond, four times a second while a command runs.
 */
function tree_size_sync(root_pid: number): number {
  const entries: { pid: number; ppid: number; pgid: number; state: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      const threads = Number(fields[17]);
      const entry = {
        pid: Number(name),
        ppid: Number(fields[1]),
        pgid: Number(fields[2]),
        state: fields[0] ?? '',
      };
      const count = Number.isFinite(threads) && threads > 0 ? threads : 1;
      for (let index = 0; index < count; index++) entries.push(entry);
    } catch {
      // gone
    }
  }
  return collect_tree(root_pid, entries).length;
}

/**
 * Builds the sandboxed form of `command` (a program and its arguments) in `work_dir`.
 *
 * Contract: rejects only when the sandbox cannot be set up (no temp dir, a proxy that cannot
 * start); everything made is undone by `cleanup` (and on a rejection). See `Sandbox` for what the
 * command may do.
 */
export async function sandboxed_command(request: {
  command: string[];
  work_dir: string;
  env: NodeJS.ProcessEnv;
  config: Readonly<SandboxConfig>;
  support: SandboxSupport;
}): Promise<SandboxedCommand> {
  const { config, support } = request;
  const kind = support.kind!;
  const work_dir = realpathSync(request.work_dir);
  temp_root ??= realpathSync(tmpdir());
  const temp_dir = mkdtempSync(join(temp_root, 'lich-sandbox-'));
  let proxy: AllowListProxy | undefined;
  let limit: ProcessLimit | undefined;
  const cleanup = async () => {
    limit?.release();
    await proxy?.close();
    try {
      rmdirSync(temp_dir); // the common case, an empty dir: one system call
    } catch {
      await rm(temp_dir, { recursive: true, force: true }).catch(() => undefined);
    }
  };
  try {
    const writable: string[] = [];
    for (const path of config.writable) {
      const real = real_or_undefined(writable_path(path, work_dir));
      if (real !== undefined) writable.push(real);
    }
    const can_write = (path: string) =>
      [work_dir, temp_dir, ...writable].some((root) => is_under(path, root));
    const lich = join(work_dir, '.lich');
    const git = git_protection(work_dir, can_write);
    const read_only = [...git.read_only];
    // the folder must exist to be mounted read-only; Lich keeps its sessions there anyway
    try {
      mkdirSync(lich, { recursive: true });
      read_only.unshift(lich);
    } catch {
      // a file in the way, or no right to
    }
    const masked = deny_read_paths(config, work_dir, request.env);
    const allowed_sockets = config.allow_unix_sockets.map((entry) =>
      socket_entry_path(entry, work_dir),
    );
    if (!filter.made) {
      filter.made = true;
      filter.bytes = unix_socket_filter();
    }
    const seccomp = kind === 'bwrap' && allowed_sockets.length === 0 ? filter.bytes : undefined;
    const socket_masks =
      kind === 'bwrap' && seccomp === undefined ? unix_socket_masks(allowed_sockets, work_dir) : [];
    if (Array.isArray(config.network)) {
      proxy = await start_allow_list_proxy(
        kind === 'bwrap' ? { handoff: true } : { port: 0 },
        config.network,
      );
    }
    limit =
      kind === 'bwrap'
        ? make_process_limit(config.max_processes, { count: tree_size_sync })
        : undefined;
    const plan: SandboxPlan = {
      work_dir,
      temp_dir,
      writable,
      pinned: git.pinned,
      read_only,
      network:
        proxy === undefined
          ? config.network === true
          : 'port' in proxy.address
            ? { port: proxy.address.port }
            : { port: SANDBOX_PROXY_PORT },
      masks: masked.map(({ path, kind: entry_kind }) => ({ path, kind: entry_kind })),
      socket_masks,
      unix_sockets: allowed_sockets.length === 0 ? 'none' : allowed_sockets,
      ...(seccomp === undefined ? {} : { seccomp_fd: 3 }),
    };
    const inputs = seccomp === undefined ? [] : [seccomp];
    if (limit?.kind === 'cgroup') {
      // see RunProcessOptions.gate: the two pipes come right after the inputs
      plan.gate = { info_fd: 3 + inputs.length, block_fd: 4 + inputs.length };
    }
    const env: NodeJS.ProcessEnv = {
      ...request.env,
      TMPDIR: temp_dir,
      TMP: temp_dir,
      TEMP: temp_dir,
    };
    // caches under a read-only home would fail every build; keep them in the temp dir
    if (!can_write(join(homedir(), '.cache'))) env.XDG_CACHE_HOME = join(temp_dir, 'cache');
    if (!can_write(join(homedir(), '.npm')) && env.npm_config_cache === undefined) {
      env.npm_config_cache = join(temp_dir, 'npm-cache');
    }
    // npm would ask registry.npmjs.org for a newer npm on every run: not what the command asked
    env.npm_config_update_notifier ??= 'false';
    let command = [...request.command];
    if (limit?.kind === 'rlimit' && command[0] === 'bash' && command[1] === '-c') {
      // RLIMIT_NPROC for the shell and all it starts; a user namespace counts it per sandbox
      command = ['bash', '-c', `ulimit -u ${limit.max} 2>/dev/null; ${command[2]}`];
    }
    let on_message: SandboxedCommand['on_message'];
    if (proxy !== undefined) {
      const port = 'port' in proxy.address ? proxy.address.port : SANDBOX_PROXY_PORT;
      const url = `http://127.0.0.1:${port}`;
      for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
        env[name] = url;
        env[name.toLowerCase()] = url;
      }
      // the sandbox's own loopback (a server a test starts) is reached directly
      env.NO_PROXY = 'localhost,127.0.0.1,::1';
      env.no_proxy = env.NO_PROXY;
      if ('handoff' in proxy.address) {
        // inside bubblewrap's network namespace a forwarder hands each connection to the proxy
        command = [
          process.execPath,
          '-e',
          FORWARDER_SOURCE,
          String(SANDBOX_PROXY_PORT),
          ...command,
        ];
        const accepting = proxy;
        on_message = (message, handle) => {
          const type = (message as { type?: unknown } | null)?.type;
          const socket = handle as import('node:net').Socket | undefined;
          if (type === FORWARDED_CONNECTION && socket && typeof socket.write === 'function') {
            accepting.accept(socket);
          } else if (socket && typeof (socket as { destroy?: unknown }).destroy === 'function') {
            socket.destroy();
          }
        };
      }
    }
    const args =
      kind === 'bwrap'
        ? [...bwrap_arguments(plan, support.bwrap!), ...command]
        : ['-p', seatbelt_profile(plan), ...command];
    const made_limit = limit;
    return {
      file: support.program!,
      args,
      env,
      sandbox: kind,
      inputs,
      ...(made_limit?.kind === 'cgroup'
        ? {
            gate: {
              on_info: (info: unknown) => {
                const pid = (info as { 'child-pid'?: unknown } | null)?.['child-pid'];
                if (typeof pid === 'number') made_limit.join(pid);
              },
            },
          }
        : {}),
      ...(on_message === undefined ? {} : { on_message }),
      ...(made_limit === undefined
        ? {}
        : {
            watch: { interval_ms: LIMIT_POLL_MS, check: made_limit.check },
            limit: { kind: made_limit.kind, max: made_limit.max },
          }),
      ...(proxy === undefined ? {} : { proxy }),
      masked,
      unix_sockets: seccomp !== undefined ? 'seccomp' : kind === 'bwrap' ? 'masks' : 'seatbelt',
      socket_masks,
      audit: () => audit_git_files(git.watched, work_dir),
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

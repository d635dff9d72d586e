import { lstatSync, mkdirSync, mkdtempSync, realpathSync, rmdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_SANDBOX_CONFIG,
  read_sandbox_config,
  type SandboxConfig,
} from './sandbox_config.js';
import { FORWARDER_SOURCE, SANDBOX_PROXY_PORT } from './sandbox_forwarder.js';
import { bwrap_arguments, type SandboxPlan, seatbelt_profile } from './sandbox_plan.js';
import { type AllowListProxy, start_allow_list_proxy } from './sandbox_proxy.js';
import { probe_sandbox, type SandboxKind, type SandboxSupport } from './sandbox_support.js';

/** How a command ran: under which sandbox, or `none`. */
export type SandboxUsed = SandboxKind | 'none';

/** A command ready to start: the program, its arguments and environment, and what to undo after. */
export interface PreparedCommand {
  ok: true;
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  sandbox: SandboxUsed;
  /** The one-per-session note that this command ran without a sandbox, when it is this one's. */
  warning?: string;
  /** The allow-list proxy of this command, when `sandbox.network` lists hosts. */
  proxy?: AllowListProxy;
  /** Removes the private temp dir. Never rejects. */
  cleanup(): Promise<void>;
}

/** A command the sandbox settings do not let run (`mode: 'required'` and no sandbox here). */
export interface RefusedCommand {
  ok: false;
  message: string;
}

/** Settings of a `Sandbox` beyond its config. */
export interface SandboxOptions {
  /** Called once, with the warning, the first time a command runs unsandboxed in `auto` mode. */
  on_warning?: (message: string) => void;
  /** Replaces `probe_sandbox` (tests, or a surface that probed already). */
  probe?: (env: NodeJS.ProcessEnv) => Promise<SandboxSupport>;
}

const READ_ONLY_NOTE = /Read-only file system|EROFS/;
const NETWORK_NOTE =
  /Could not resolve host|Temporary failure in name resolution|Name or service not known|Network is unreachable|ENETUNREACH|EAI_AGAIN|ENOTFOUND|getaddrinfo|Connection refused|ECONNREFUSED|Couldn't connect to server|Failed to connect/;

const noop = async () => undefined;
const SANDBOX_BRAND: unique symbol = Symbol.for('lich.sandbox');

/** A path from `sandbox.writable`: `~/…` from the home directory, relative ones from the work dir. */
function writable_path(path: string, work_dir: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return resolve(work_dir, path);
}

// The few metadata calls below run synchronously: each takes microseconds, and on a loaded
// machine a trip through the thread pool per call costs milliseconds on every command.

function kind_of(path: string): 'dir' | 'file' | undefined {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

function make_dir(path: string): void {
  try {
    mkdirSync(path, { recursive: true });
  } catch {
    // a file in the way, or no right to: then it is not protected as a folder, see below
  }
}

/** What inside the work dir a command may not change, and what it may not rename away. */
function protected_paths(work_dir: string): { pinned: string[]; read_only: string[] } {
  const pinned: string[] = [];
  const read_only: string[] = [];
  const lich = join(work_dir, '.lich');
  // the folder must exist to be mounted read-only; Lich keeps its sessions there anyway
  make_dir(lich);
  if (kind_of(lich) === 'dir') read_only.push(lich);
  const git = join(work_dir, '.git');
  const git_kind = kind_of(git);
  if (git_kind === 'dir') {
    pinned.push(git);
    const hooks = join(git, 'hooks');
    make_dir(hooks);
    if (kind_of(hooks) === 'dir') read_only.push(hooks);
    // core.hooksPath, core.fsmonitor and aliases in .git/config run commands as hooks do
    if (kind_of(join(git, 'config')) === 'file') read_only.push(join(git, 'config'));
  } else if (git_kind === 'file') {
    read_only.push(git); // a worktree's or submodule's pointer to its git dir
  }
  return { pinned, read_only };
}

let temp_root: string | undefined;

/**
 * The sandbox of one session: it decides, from its config alone, how each `terminal` and
 * `run_tests` command runs. The permission policy is not consulted and cannot change it: a
 * command allowed always still runs sandboxed, and only `mode: 'off'` runs commands without one.
 *
 * Contract:
 * - `prepare` never rejects. `off`: plain `bash -c`. Otherwise the machine's sandbox (probed once
 *   per process, see `probe_sandbox`): bubblewrap or `sandbox-exec` with the work dir, a private
 *   temp dir (`TMPDIR`, removed by `cleanup`) and `writable` read-write, `.git/hooks`,
 *   `.git/config` and `.lich/` read-only, `.git` not renamable, the network as configured. With
 *   no sandbox here: `required` refuses (`ok: false`, nothing runs), `auto` runs the command
 *   plainly and the first such command of this `Sandbox` carries the warning (also passed to
 *   `on_warning`).
 * - `notes` gives the lines a result adds: that warning, and when a sandboxed command's output
 *   shows a refused write or a failed connection, one line saying how to allow it.
 */
export class Sandbox {
  /** Marks instances, so `is_instance` holds across duplicated copies of this package. */
  readonly [SANDBOX_BRAND] = true;
  readonly config: SandboxConfig;
  readonly #options: SandboxOptions;
  #warned = false;

  constructor(
    config: Partial<SandboxConfig> = DEFAULT_SANDBOX_CONFIG,
    options: SandboxOptions = {},
  ) {
    this.config = Object.freeze(read_sandbox_config({ ...DEFAULT_SANDBOX_CONFIG, ...config }));
    this.#options = options;
  }

  /** True for a `Sandbox` of any copy of this package. */
  static is_instance(value: unknown): value is Sandbox {
    return (
      value !== null &&
      typeof value === 'object' &&
      (value as { [SANDBOX_BRAND]?: unknown })[SANDBOX_BRAND] === true
    );
  }

  /** What this machine supports (probed once per process and PATH). */
  support(env: NodeJS.ProcessEnv = process.env): Promise<SandboxSupport> {
    return this.#options.probe ? this.#options.probe(env) : probe_sandbox({ env });
  }

  /** Prepares `bash -c script` in `work_dir` with `env`. See the class contract. */
  async prepare(request: {
    script: string;
    work_dir: string;
    env: NodeJS.ProcessEnv;
  }): Promise<PreparedCommand | RefusedCommand> {
    const plain: PreparedCommand = {
      ok: true,
      file: 'bash',
      args: ['-c', request.script],
      env: request.env,
      sandbox: 'none',
      cleanup: noop,
    };
    if (this.config.mode === 'off') return plain;
    const support = await this.support(request.env);
    if (support.kind === undefined || support.program === undefined) {
      if (this.config.mode === 'required') {
        return {
          ok: false,
          message:
            `Refused: sandbox.mode is 'required' and no sandbox can start here: ${support.reason}. ` +
            'The command was not run. Fix the sandbox (`lich sandbox check` says what is missing), ' +
            "or set sandbox.mode to 'auto' to run commands unsandboxed with a warning.",
        };
      }
      if (!this.#warned) {
        this.#warned = true;
        const warning =
          `[sandbox] Commands run without a sandbox on this machine: ${support.reason}. ` +
          "They can write anywhere you can. Set sandbox.mode to 'required' to refuse them instead, " +
          "or to 'off' to drop this note.";
        this.#options.on_warning?.(warning);
        return { ...plain, warning };
      }
      return plain;
    }
    try {
      return await this.#sandboxed(request, support);
    } catch (error) {
      // the plan could not be made (no temp dir): never fall back silently to no sandbox
      return {
        ok: false,
        message: `Refused: the sandbox could not be set up (${error instanceof Error ? error.message : String(error)}). The command was not run.`,
      };
    }
  }

  /** The lines a command's result adds after its output. */
  notes(prepared: PreparedCommand, output: string): string[] {
    const lines: string[] = [];
    if (prepared.warning !== undefined) lines.push(prepared.warning);
    if (prepared.sandbox === 'none') return lines;
    if (
      READ_ONLY_NOTE.test(output) ||
      (prepared.sandbox === 'sandbox-exec' && /Operation not permitted/.test(output))
    ) {
      lines.push(
        '[sandbox] The sandbox refused a write outside the work dir (or to .git/hooks, .git/config, .lich/). ' +
          'To allow a folder, add it to sandbox.writable in .lich/config.json.',
      );
    }
    const hosts = Array.isArray(this.config.network) ? this.config.network : undefined;
    const refused = prepared.proxy === undefined ? [] : [...prepared.proxy.refused];
    if (refused.length > 0) {
      lines.push(
        `[sandbox] The sandbox proxy refused ${refused.join(', ')}: not in sandbox.network (${hosts?.join(', ')}). To allow a host, add it to sandbox.network in .lich/config.json.`,
      );
    } else if (this.config.network !== true && NETWORK_NOTE.test(output)) {
      lines.push(
        hosts !== undefined
          ? `[sandbox] Commands reach only ${hosts.join(', ')}, through the proxy in HTTPS_PROXY and HTTP_PROXY; other connections fail. To allow more, add hosts to sandbox.network in .lich/config.json.`
          : '[sandbox] The network is off for commands. To allow it, set sandbox.network to true, or to a list of hosts, in .lich/config.json.',
      );
    }
    return lines;
  }

  async #sandboxed(
    request: { script: string; work_dir: string; env: NodeJS.ProcessEnv },
    support: SandboxSupport,
  ): Promise<PreparedCommand> {
    const work_dir = realpathSync(request.work_dir);
    temp_root ??= realpathSync(tmpdir());
    const temp_dir = mkdtempSync(join(temp_root, 'lich-sandbox-'));
    let proxy: AllowListProxy | undefined;
    const cleanup = async () => {
      await proxy?.close();
      try {
        rmdirSync(temp_dir); // the common case, an empty dir: one system call
      } catch {
        await rm(temp_dir, { recursive: true, force: true }).catch(() => undefined);
      }
    };
    try {
      const writable: string[] = [];
      for (const path of this.config.writable) {
        try {
          writable.push(realpathSync(writable_path(path, work_dir)));
        } catch {
          // a folder that does not exist is not bound
        }
      }
      const { pinned, read_only } = protected_paths(work_dir);
      if (Array.isArray(this.config.network)) {
        const listen =
          support.kind === 'bwrap'
            ? { socket: join(temp_dir, 'proxy.sock') }
            : { port: 0 as const };
        proxy = await start_allow_list_proxy(listen, this.config.network);
      }
      const plan: SandboxPlan = {
        work_dir,
        temp_dir,
        writable,
        pinned,
        read_only,
        network: proxy?.address ?? this.config.network === true,
      };
      const env: NodeJS.ProcessEnv = {
        ...request.env,
        TMPDIR: temp_dir,
        TMP: temp_dir,
        TEMP: temp_dir,
      };
      // caches under a read-only home would fail every build; keep them in the temp dir
      if (!writable.some((path) => join(homedir(), '.cache').startsWith(path))) {
        env.XDG_CACHE_HOME = join(temp_dir, 'cache');
      }
      const command = ['bash', '-c', request.script];
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
        // inside bubblewrap's network namespace a forwarder carries that port to the socket
        if ('socket' in proxy.address) {
          command.unshift(
            process.execPath,
            '-e',
            FORWARDER_SOURCE,
            proxy.address.socket,
            String(SANDBOX_PROXY_PORT),
          );
        }
      }
      const program = support.program!;
      const args =
        support.kind === 'bwrap'
          ? [...bwrap_arguments(plan, support.bwrap!), ...command]
          : ['-p', seatbelt_profile(plan), ...command];
      const prepared: PreparedCommand = {
        ok: true,
        file: program,
        args,
        env,
        sandbox: support.kind!,
        cleanup,
      };
      if (proxy !== undefined) prepared.proxy = proxy;
      return prepared;
    } catch (error) {
      await cleanup();
      throw error;
    }
  }
}

/**
 * The `Sandbox` a tool context carries (`context.sandbox`, put there by the executor), or one
 * made from a plain config found there, or the default (`auto`, no network).
 *
 * Contract: never throws; the same default instance is returned each time no sandbox is given, so
 * its one warning is given once per process.
 */
export function sandbox_of(context: { [key: string]: unknown }): Sandbox {
  const value = context.sandbox;
  if (Sandbox.is_instance(value)) return value;
  if (value !== null && typeof value === 'object') {
    let made = from_config.get(value);
    if (made === undefined) {
      made = new Sandbox(read_sandbox_config(value));
      from_config.set(value, made);
    }
    return made;
  }
  default_sandbox ??= new Sandbox();
  return default_sandbox;
}

let default_sandbox: Sandbox | undefined;
const from_config = new WeakMap<object, Sandbox>();

import { type SandboxedCommand, sandboxed_command } from './sandbox_command.js';
import {
  DEFAULT_SANDBOX_CONFIG,
  read_sandbox_config,
  type SandboxConfig,
} from './sandbox_config.js';
import { sandbox_notes } from './sandbox_notes.js';
import type { AllowListProxy } from './sandbox_proxy.js';
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
  /** The command line as given (for the `[sandbox]` lines). */
  script: string;
  /** What the sandbox set up, when it ran sandboxed: masks, the filter, the process limit. */
  sandboxed?: SandboxedCommand;
  /** Bytes for file descriptors 3, 4, … (see `RunProcessOptions.inputs`). */
  inputs?: Buffer[];
  on_message?: (message: unknown, handle: unknown) => void;
  gate?: { on_info(info: unknown): void };
  watch?: { interval_ms: number; check(pid: number): string | undefined };
  /** After the command ended: what it planted that was undone, as `[sandbox]` lines. Never throws. */
  after(): string[];
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

const noop = async () => undefined;
const SANDBOX_BRAND: unique symbol = Symbol.for('lich.sandbox');

/**
 * The sandbox of one session: it decides, from its config alone, how each `terminal` and
 * `run_tests` command runs. The permission policy is not consulted and cannot change it: a
 * command allowed always still runs sandboxed, and only `mode: 'off'` runs commands without one.
 *
 * Contract:
 * - `prepare` never rejects. `off`: plain `bash -c`. Otherwise the machine's sandbox (probed once
 *   per process, see `probe_sandbox`): bubblewrap or `sandbox-exec` with the work dir, a private
 *   temp dir (`TMPDIR`, removed by `cleanup`) and `writable` read-write; `.lich/` and what git
 *   would run or read as config (hooks folders, `core.hooksPath`, configs, of nested repositories
 *   too: `git_protection`) read-only, `.git` not renamable; credential stores masked
 *   (`deny_read_paths`); no unix socket but those `allow_unix_sockets` names (a seccomp filter
 *   under bubblewrap); at most `max_processes` processes (`make_process_limit`); the network as
 *   configured. With no sandbox here: `required` refuses (`ok: false`, nothing runs), `auto` runs
 *   the command plainly and the first such command of this `Sandbox` carries the warning (also
 *   passed to `on_warning`).
 * - `after` (once the command ended) removes git config files the command planted and says so;
 *   `notes` gives the lines a result adds: that warning, and when a sandboxed command ran into
 *   the sandbox (a refused write, a failed connection, a masked path, a blocked socket), one line
 *   saying how to allow it.
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

  /**
   * Prepares `bash -c script` (or `argv`, when given) in `work_dir` with `env`. See the class
   * contract.
   */
  async prepare(request: {
    script: string;
    work_dir: string;
    env: NodeJS.ProcessEnv;
    argv?: readonly string[];
  }): Promise<PreparedCommand | RefusedCommand> {
    const command = request.argv === undefined ? ['bash', '-c', request.script] : [...request.argv];
    const plain: PreparedCommand = {
      ok: true,
      file: command[0]!,
      args: command.slice(1),
      env: request.env,
      sandbox: 'none',
      script: request.script,
      after: () => [],
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
      const made = await sandboxed_command({
        command,
        work_dir: request.work_dir,
        env: request.env,
        config: this.config,
        support,
      });
      const prepared: PreparedCommand = {
        ok: true,
        file: made.file,
        args: made.args,
        env: made.env,
        sandbox: made.sandbox,
        script: request.script,
        sandboxed: made,
        inputs: made.inputs,
        after: () => {
          const removed = made.audit();
          return removed.length === 0
            ? []
            : [
                `[sandbox] Removed ${removed.join(', ')}, which the command made: git would read it as its config (a way to run code outside the sandbox). Commands may not change git's config.`,
              ];
        },
        cleanup: made.cleanup,
      };
      if (made.on_message !== undefined) prepared.on_message = made.on_message;
      if (made.gate !== undefined) prepared.gate = made.gate;
      if (made.watch !== undefined) prepared.watch = made.watch;
      if (made.proxy !== undefined) prepared.proxy = made.proxy;
      return prepared;
    } catch (error) {
      // the plan could not be made (no temp dir): never fall back silently to no sandbox
      return {
        ok: false,
        message: `Refused: the sandbox could not be set up (${error instanceof Error ? error.message : String(error)}). The command was not run.`,
      };
    }
  }

  /** The lines a command's result adds after its output. See `sandbox_notes`. */
  notes(prepared: PreparedCommand, output: string): string[] {
    return sandbox_notes(this.config, prepared, output);
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

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** Processes (threads count too) one sandboxed command may have at once, by default. */
export const DEFAULT_MAX_PROCESSES = 1024;

/** How long a command may keep running into its process limit before it is stopped. */
export const LIMIT_GRACE_MS = 2_000;

/**
 * The per-command process limit: a pids cgroup where Lich may make one (root, or a delegated
 * cgroup), else `RLIMIT_NPROC` set by the sandbox's shell (`ulimit -u`, which a user namespace
 * counts per sandbox).
 */
export interface ProcessLimit {
  kind: 'cgroup' | 'rlimit';
  max: number;
  /** The cgroup's folder (`kind: 'cgroup'`). */
  dir?: string;
  /**
   * Puts a process in the cgroup (`kind: 'cgroup'`): the sandbox's first process, while it waits
   * at bubblewrap's start gate, so everything it forks is counted. Never throws.
   */
  join(pid: number): void;
  /**
   * Called every `LIMIT_POLL_MS` while the command runs: a reason to stop it once it has run into
   * the limit for `LIMIT_GRACE_MS` (a fork bomb that retries forever), else `undefined`.
   */
  check(root_pid: number): string | undefined;
  /** Removes the cgroup. Never throws. */
  release(): void;
}

/** How often `check` is called. */
export const LIMIT_POLL_MS = 250;

let cgroup_parent: string | null | undefined;
let counter = 0;

/** The pids cgroup folder of this process (v1 `pids` hierarchy, or v2 with `pids` delegated). */
function find_cgroup_parent(): string | null {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  } catch {
    return null;
  }
  const candidates: string[] = [];
  for (const line of lines) {
    const [, controllers, path] = line.split(':', 3) as [string, string, string];
    if (path === undefined) continue;
    if (controllers.split(',').includes('pids')) candidates.push(join('/sys/fs/cgroup/pids', path));
    if (controllers === '') {
      candidates.push(join('/sys/fs/cgroup', path), join('/sys/fs/cgroup/unified', path));
    }
  }
  for (const dir of candidates) {
    try {
      if (!existsSync(join(dir, 'cgroup.procs'))) continue;
      // v2: children get a pids.max only where the controller is handed down
      const control = join(dir, 'cgroup.subtree_control');
      if (existsSync(control) && !readFileSync(control, 'utf8').split(/\s+/).includes('pids')) {
        continue;
      }
      const probe = join(dir, `lich-probe-${process.pid}`);
      mkdirSync(probe);
      const usable = existsSync(join(probe, 'pids.max'));
      rmdirSync(probe);
      if (usable) {
        remove_stale(dir);
        return dir;
      }
    } catch {
      // not ours to write
    }
  }
  return null;
}

function read_max_events(dir: string): number {
  try {
    const match = /^max (\d+)$/m.exec(readFileSync(join(dir, 'pids.events'), 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * A checker that reports once the command has stayed at its limit (`at_limit()` true at every
 * poll) for `LIMIT_GRACE_MS`: a fork bomb holds every slot while its shells wait to retry, where
 * a build that touched the limit drops below it again.
 */
function make_check(
  max: number,
  at_limit: (root_pid: number) => boolean,
): (root_pid: number) => string | undefined {
  let since: number | undefined;
  return (root_pid) => {
    if (!at_limit(root_pid)) {
      since = undefined;
      return undefined;
    }
    const now = Date.now();
    since ??= now;
    if (now - since < LIMIT_GRACE_MS) return undefined;
    return `the command kept hitting the sandbox's limit of ${max} processes (sandbox.max_processes)`;
  };
}

function read_number(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').trim());
  } catch {
    return 0;
  }
}

/**
 * A process limit for one command, or `undefined` when `max` is 0 (no limit).
 *
 * Contract: never throws. Where a pids cgroup can be made (checked once per process) the caller
 * puts the sandbox's first process in it with `join` before that process runs anything (the
 * sandbox waits at a gate), so nothing the command forks escapes the count; `check` reads the
 * cgroup's `pids.current` and `pids.events`. Elsewhere the limit
 * is `rlimit`: the caller sets `ulimit -u` in the sandbox's shell, and `check` counts the
 * command's processes with `count(root_pid)`, when given, to see it stay at the limit.
 */
export function make_process_limit(
  max: number,
  options: { count?: (root_pid: number) => number } = {},
): ProcessLimit | undefined {
  if (!Number.isInteger(max) || max <= 0) return undefined;
  if (cgroup_parent === undefined) cgroup_parent = find_cgroup_parent();
  if (cgroup_parent !== null) {
    const dir = take_cgroup(cgroup_parent, max);
    if (dir !== undefined) {
      return {
        kind: 'cgroup',
        max,
        dir,
        join: (pid) => {
          try {
            writeFileSync(join(dir, 'cgroup.procs'), String(pid));
          } catch {
            // gone before it was let in: nothing left to count
          }
        },
        check: make_check(
          max,
          () => read_number(join(dir, 'pids.current')) >= max - 1 && read_max_events(dir) > 0,
        ),
        release: () => release_cgroup(dir),
      };
    }
  }
  const count = options.count;
  return {
    kind: 'rlimit',
    max,
    join: () => undefined,
    // near the limit: the command's own processes, and a few more it may be forking
    check: make_check(max, (root_pid) => count !== undefined && count(root_pid) >= max - 8),
    release: () => undefined,
  };
}

const pending = new Set<string>();
/** Empty cgroups kept for the next commands: making and removing one costs more than a command's setup. */
const idle: string[] = [];
const IDLE_MOST = 4;
let exit_hook = false;

/** An empty cgroup with `pids.max` set to `max`: an idle one, else a new one. */
function take_cgroup(parent: string, max: number): string | undefined {
  while (idle.length > 0) {
    const dir = idle.pop()!;
    try {
      if (read_number(join(dir, 'pids.current')) === 0) {
        writeFileSync(join(dir, 'pids.max'), String(max));
        return dir;
      }
    } catch {
      // gone: make another
    }
    remove_cgroup(dir);
  }
  const dir = join(parent, `lich-${process.pid}-${++counter}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(max));
    hook_exit();
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return undefined;
  }
}

/** On the way out, the idle cgroups and those still emptying are removed. */
function hook_exit(): void {
  if (exit_hook) return;
  exit_hook = true;
  process.once('exit', () => {
    for (const left of [...idle, ...pending]) {
      try {
        rmdirSync(left);
      } catch {
        // still busy: a cgroup left behind holds nothing but its name
      }
    }
  });
}

/** A cgroup whose command ended: kept idle when empty (and room is left), else removed. */
function release_cgroup(dir: string): void {
  if (idle.length < IDLE_MOST && read_number(join(dir, 'pids.current')) === 0) {
    idle.push(dir);
    return;
  }
  remove_cgroup(dir);
}

/** Removes a cgroup once its last process is gone (the kernel refuses while any is left). */
function remove_cgroup(dir: string, attempt = 0): void {
  try {
    rmdirSync(dir);
    pending.delete(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EBUSY' || attempt >= 20) {
      pending.delete(dir);
      return;
    }
    pending.add(dir);
    setTimeout(() => remove_cgroup(dir, attempt + 1), 50 * (attempt + 1)).unref();
  }
}

/** Removes the cgroups of Lich processes that are gone (a crash, a SIGKILL). */
function remove_stale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^lich-(\d+)-\d+$/.exec(name);
    if (!match || Number(match[1]) === process.pid) continue;
    if (existsSync(`/proc/${match[1]}`)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // still in use, or not ours
    }
  }
}

/** Whether commands here get a pids cgroup (for `lich sandbox check`). */
export function process_limit_kind(): 'cgroup' | 'rlimit' {
  if (cgroup_parent === undefined) cgroup_parent = find_cgroup_parent();
  return cgroup_parent === null ? 'rlimit' : 'cgroup';
}

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
  /** Program and arguments to put before the sandbox's own command line (`kind: 'cgroup'`). */
  prefix: string[];
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
 * Contract: never throws. Where a pids cgroup can be made (checked once per process) the command
 * is started through `sh`, which joins the cgroup before it runs the sandbox, so nothing the
 * command forks escapes the count; `check` reads the cgroup's `pids.events`. Elsewhere the limit
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
    const dir = join(cgroup_parent, `lich-${process.pid}-${++counter}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pids.max'), String(max));
      return {
        kind: 'cgroup',
        max,
        dir,
        prefix: ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', join(dir, 'cgroup.procs')],
        check: make_check(
          max,
          () => read_number(join(dir, 'pids.current')) >= max - 1 && read_max_events(dir) > 0,
        ),
        release: () => release_cgroup(dir),
      };
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // never made
      }
    }
  }
  const count = options.count;
  return {
    kind: 'rlimit',
    max,
    prefix: [],
    // near the limit: the command's own processes, and a few more it may be forking
    check: make_check(max, (root_pid) => count !== undefined && count(root_pid) >= max - 8),
    release: () => undefined,
  };
}

const pending = new Set<string>();
let exit_hook = false;

/** Removes a cgroup once its last process is gone (the kernel refuses while any is left). */
function release_cgroup(dir: string, attempt = 0): void {
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
    if (!exit_hook) {
      exit_hook = true;
      // the last tries, on the way out: a cgroup left behind holds nothing but its name
      process.once('exit', () => {
        for (const left of pending) {
          try {
            rmdirSync(left);
          } catch {
            // still busy
          }
        }
      });
    }
    setTimeout(() => release_cgroup(dir, attempt + 1), 50 * (attempt + 1)).unref();
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

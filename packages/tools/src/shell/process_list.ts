import { readdirSync, readFileSync } from 'node:fs';
import { child_process_module } from './child_process_module.js';

/** One process as the OS lists it. `state` is the one-letter state (`Z` for a zombie). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Start time in clock ticks since boot (from `/proc`; absent from `ps`). */
  start?: number;
}

/**
 * One process from the text of its `/proc/<pid>/stat`, or `undefined` when the text is not one.
 * The command name may hold spaces and ')': the fields are read after its last ')'.
 */
export function parse_stat(pid: number, text: string): ProcessInfo | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const start = Number(fields[19]);
  if (!fields[0] || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return undefined;
  return { pid, ppid, pgid, state: fields[0], ...(Number.isFinite(start) ? { start } : {}) };
}

/**
 * Reads `/proc` synchronously: procfs answers from memory, and one pass over a few hundred
 * `stat` files takes about a millisecond this way, where the same reads through the thread pool
 * take tens of milliseconds on a loaded machine (the scan runs after every command).
 */
function list_from_proc(): ProcessInfo[] {
  const entries: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const entry = parse_stat(Number(name), readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (entry) entries.push(entry);
    } catch {
      // the process ended while we listed
    }
  }
  return entries;
}

function list_from_ps(): Promise<ProcessInfo[]> {
  return new Promise((resolve, reject) => {
    child_process_module().execFile(
      'ps',
      ['-A', '-o', 'pid=,ppid=,pgid=,stat='],
      (error, stdout) => {
        if (error) return reject(error);
        const result: ProcessInfo[] = [];
        for (const line of stdout.split('\n')) {
          const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
          if (pid && ppid && pgid && stat) {
            result.push({
              pid: Number(pid),
              ppid: Number(ppid),
              pgid: Number(pgid),
              state: stat[0]!,
            });
          }
        }
        resolve(result);
      },
    );
  });
}

/**
 * Lists every process of the machine: from `/proc` on Linux, from `ps` elsewhere.
 *
 * Contract: never throws; resolves `undefined` when neither source is available.
 */
export async function list_processes(): Promise<ProcessInfo[] | undefined> {
  try {
    return list_from_proc();
  } catch {
    try {
      return await list_from_ps();
    } catch {
      return undefined;
    }
  }
}

/** True for a process that has ended but was not reaped yet. */
export function is_zombie(process_info: ProcessInfo): boolean {
  return process_info.state === 'Z' || process_info.state === 'X';
}

/**
 * The processes that belong to the tree of `root`: the members of process group `root` (which
 * includes children orphaned when their parent died) and every descendant of those by parent pid
 * (which includes children that moved to a group of their own).
 */
export function collect_tree(root: number, processes: readonly ProcessInfo[]): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const entry of processes) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const found = new Map<number, ProcessInfo>();
  const queue = processes.filter((entry) => entry.pid === root || entry.pgid === root);
  while (queue.length > 0) {
    const entry = queue.pop()!;
    if (found.has(entry.pid)) continue;
    found.set(entry.pid, entry);
    queue.push(...(children.get(entry.pid) ?? []));
  }
  return [...found.values()];
}

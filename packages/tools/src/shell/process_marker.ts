import { readdirSync, readFileSync } from 'node:fs';
import type { ProcessInfo } from './process_list.js';

/**
 * The environment variable every command a tool starts carries, with a value unique to that run.
 * Children inherit it, so a process that left the run's process group and lost its parent
 * (`setsid nohup sleep &`, `setsid -f`) is still found by it. A program that clears its own
 * environment (`env -i`) drops it: that escape is closed only by the sandbox's PID namespace.
 */
export const RUN_MARKER_NAME = 'LICH_RUN_ID';

/** Identifies one run among the processes of the machine. */
export interface RunMarker {
  value: string;
  /** The start time (clock ticks since boot) of the run's first process: nothing older is its. */
  since: number;
}

let counter = 0;

/** A marker value unique to this process and run. */
export function new_marker_value(): string {
  counter += 1;
  return `${process.pid}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
}

/** The start time (clock ticks since boot) of `pid`, from `/proc`; `undefined` elsewhere. */
export function start_ticks(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const value = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function carries(environ: Buffer, needle: Buffer): boolean {
  const at = environ.indexOf(needle);
  return at === 0 || (at > 0 && environ[at - 1] === 0);
}

function needle_of(marker: RunMarker): Buffer {
  return Buffer.from(`${RUN_MARKER_NAME}=${marker.value}\0`);
}

/**
 * The processes among `processes` that carry the marker in their environment: only those started
 * no earlier than the run are read (`/proc/<pid>/environ`, readable for our own processes).
 *
 * Contract: never throws; on a system without `/proc` it finds nothing.
 */
export async function marked_processes(
  marker: RunMarker,
  processes: readonly ProcessInfo[],
): Promise<ProcessInfo[]> {
  const needle = needle_of(marker);
  const found: ProcessInfo[] = [];
  for (const entry of processes) {
    if (entry.start === undefined || entry.start < marker.since || entry.pid === process.pid)
      continue;
    try {
      // synchronous, as the process list is: procfs answers from memory
      if (carries(readFileSync(`/proc/${entry.pid}/environ`), needle)) found.push(entry);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** `marked_processes` done synchronously, for the moment the process exits. */
export function marked_pids_sync(marker: RunMarker): number[] {
  const needle = needle_of(marker);
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const start = start_ticks(pid);
    if (start === undefined || start < marker.since) continue;
    try {
      if (carries(readFileSync(`/proc/${pid}/environ`), needle)) found.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

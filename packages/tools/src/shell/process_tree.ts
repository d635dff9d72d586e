import { setTimeout as sleep } from 'node:timers/promises';
import { collect_tree, is_zombie, list_processes } from './process_list.js';
import { marked_processes, type RunMarker } from './process_marker.js';

/** Time a tree gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 1_000;
const POLL_MS = 15;
/** After the grace, how long SIGKILL gets before the kill is given up (a process stuck in I/O). */
const GIVE_UP_AFTER_MS = 1_000;

/** Sends `signal` to `pid` (a group when negative); a process gone or not ours is let be. */
export function send_signal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone (ESRCH) or not ours (EPERM): nothing more to do for this pid
  }
}

/**
 * Ends the whole process tree of `root` (a process group leader, alive or not).
 *
 * Contract:
 * - never throws; resolves once no live process of the tree is left, or at the latest about
 *   `grace_ms` plus one second after it was called (a process stuck in the kernel cannot be
 *   killed);
 * - the group is signalled as one (SIGTERM, then after `grace_ms` SIGKILL), so no parent can run
 *   its next command after its child was ended; descendants that left the group are signalled by
 *   pid, and processes forked meanwhile are found on the next poll;
 * - with a `marker`, processes carrying it in their environment (see `RUN_MARKER_NAME`) are part
 *   of the tree too, wherever they moved (`setsid`, a parent that exited);
 * - without a process list (no `/proc`, no `ps`) it signals the group `-root` only;
 * - resolves with the pids it signalled.
 *
 * Reaping what was killed is the parent's job, and for orphans init's: a sandbox whose init never
 * reaps keeps them listed as zombies (dead, holding no resources but a process-table slot).
 */
export async function kill_process_tree(
  root: number,
  options: { grace_ms?: number; marker?: RunMarker } = {},
): Promise<number[]> {
  const grace_ms = options.grace_ms ?? KILL_GRACE_MS;
  const started = Date.now();
  const signalled = new Map<number, NodeJS.Signals>();
  let group_phase: NodeJS.Signals | undefined;
  for (;;) {
    const elapsed = Date.now() - started;
    const phase: NodeJS.Signals = elapsed < grace_ms ? 'SIGTERM' : 'SIGKILL';
    const processes = await list_processes();
    if (!processes) {
      send_signal(-root, 'SIGTERM');
      await sleep(Math.min(grace_ms, 200));
      send_signal(-root, 'SIGKILL');
      return [root];
    }
    const tree = collect_tree(root, processes);
    if (options.marker !== undefined) {
      const known = new Set(tree.map((entry) => entry.pid));
      for (const entry of await marked_processes(options.marker, processes)) {
        if (!known.has(entry.pid)) tree.push(entry);
      }
    }
    const live = tree.filter((entry) => !is_zombie(entry));
    if (live.length === 0 || elapsed >= grace_ms + GIVE_UP_AFTER_MS) break;
    if (group_phase !== phase) {
      send_signal(-root, phase);
      group_phase = phase;
      for (const entry of live) if (entry.pgid === root) signalled.set(entry.pid, phase);
    }
    for (const entry of live) {
      if (signalled.get(entry.pid) === phase) continue;
      send_signal(entry.pid, phase);
      signalled.set(entry.pid, phase);
    }
    await sleep(POLL_MS);
  }
  return [...signalled.keys()];
}

import { marked_pids_sync, type RunMarker } from './process_marker.js';
import { send_signal } from './process_tree.js';

/** A run still going, for the exit hook. */
export interface ActiveRun {
  pid: number;
  marker?: RunMarker;
}

const active_runs = new Set<ActiveRun>();
let exit_hook_installed = false;

/** Keeps `run` to be killed if Lich exits while it goes (the exit hook is installed once). */
export function track(run: ActiveRun): void {
  active_runs.add(run);
  if (exit_hook_installed) return;
  exit_hook_installed = true;
  process.once('exit', kill_active_runs_sync);
}

/** Forgets `run`: it ended. */
export function untrack(run: ActiveRun): void {
  active_runs.delete(run);
}

/** Kills, synchronously, every run still going: what must not outlive Lich's own exit. */
function kill_active_runs_sync(): void {
  for (const run of active_runs) {
    send_signal(-run.pid, 'SIGKILL');
    if (run.marker !== undefined)
      for (const pid of marked_pids_sync(run.marker)) send_signal(pid, 'SIGKILL');
  }
  active_runs.clear();
}

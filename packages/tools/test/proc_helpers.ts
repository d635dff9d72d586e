import { readFileSync } from 'node:fs';

/** The state letter of a process, or undefined once it no longer exists (reaped). */
export function process_state(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * True when `pid` runs no more: it no longer exists, or it is a zombie that is not ours to reap.
 * A process orphaned by a parent that exited first is handed to init, whose job reaping it is; the
 * sandbox init of some CI machines never reaps, so such a zombie is dead but still listed.
 */
export function process_gone(pid: number): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' && Number(fields[1]) !== process.pid;
  } catch {
    return true;
  }
}

/** The pids printed as `pid=<n>` by a test command. */
export function printed_pids(output: string): number[] {
  return [...output.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]));
}

/** Waits until `check` holds or `ms` pass. */
export async function wait_for(check: () => boolean, ms = 3_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

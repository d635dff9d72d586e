import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CheckpointError, system_code, throw_if_aborted } from './errors.js';

/** A held store lock. */
export interface StoreLock {
  /** Releases the lock. Never throws; safe to call twice. */
  release(): void;
}

/** A lock file with no pid yet is being written by its creator; after this long it is stale. */
const UNFINISHED_LOCK_MS = 10_000;
const POLL_MS = 25;

/** Holders in this process, by lock path: the next one waits for the previous. */
const local_queues = new Map<string, Promise<void>>();

function is_alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return system_code(error) === 'EPERM';
  }
}

function read_owner(path: string): number | undefined {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function try_create(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if (system_code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return read_owner(path) === process.pid;
}

/** True when the lock at `path` was left by a process that is gone. */
function is_stale(path: string): boolean {
  const owner = read_owner(path);
  if (owner !== undefined) return owner !== process.pid && !is_alive(owner);
  const info = statSync(path, { throwIfNoEntry: false });
  return info !== undefined && Date.now() - info.mtimeMs > UNFINISHED_LOCK_MS;
}

/**
 * Takes the store's lock: first in this process (holders queue), then across processes through a
 * file created with O_EXCL that holds this process's pid. A lock left by a process that is gone
 * (killed mid-checkpoint) is taken over.
 *
 * Contract: resolves with the lock, or rejects with a `CheckpointError`: `locked` when another live
 * process held it for `timeout_ms`, naming its pid; `not_writable` when the lock file cannot be
 * created; `aborted` when `signal` fires while waiting.
 */
export async function acquire_store_lock(
  path: string,
  options: { timeout_ms: number; signal?: AbortSignal },
): Promise<StoreLock> {
  const previous = local_queues.get(path) ?? Promise.resolve();
  let release_local!: () => void;
  const mine = new Promise<void>((resolve) => {
    release_local = resolve;
  });
  const chained = previous.then(() => mine);
  local_queues.set(path, chained);
  const done_local = () => {
    release_local();
    if (local_queues.get(path) === chained) local_queues.delete(path);
  };
  await previous;
  const deadline = Date.now() + options.timeout_ms;
  try {
    for (;;) {
      throw_if_aborted(options.signal, 'waiting for the checkpoint store');
      let created: boolean;
      try {
        created = try_create(path);
      } catch (error) {
        throw new CheckpointError('not_writable', `cannot create ${path}: ${String(error)}`, {
          cause: error,
        });
      }
      if (created) break;
      if (is_stale(path)) {
        rmSync(path, { force: true });
        continue;
      }
      if (Date.now() >= deadline) {
        const owner = read_owner(path);
        throw new CheckpointError(
          'locked',
          `the checkpoint store ${path} is held by another process${owner === undefined ? '' : ` (pid ${owner})`}; try again when it is done`,
        );
      }
      await sleep(POLL_MS);
    }
  } catch (error) {
    done_local();
    throw error;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (read_owner(path) === process.pid) rmSync(path, { force: true });
      done_local();
    },
  };
}

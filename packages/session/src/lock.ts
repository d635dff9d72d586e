import { open, readFile, stat, unlink } from 'node:fs/promises';
import { error_text, SessionError, system_code } from './errors.js';

/** A held write lock on one session file. */
export interface SessionLock {
  /** The lock file: `<session file>.lock`, holding the owner's pid. */
  readonly path: string;
  /** Removes the lock file if it is still ours. Never throws; safe to call twice. */
  release(): Promise<void>;
}

/** A lock file with no pid yet is being written by its creator; after this long it is stale. */
const UNFINISHED_LOCK_MS = 10_000;

function is_alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return system_code(error) === 'EPERM';
  }
}

async function read_owner(lock_path: string): Promise<number | undefined> {
  const text = await readFile(lock_path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function try_create(lock_path: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(lock_path, 'wx', 0o644);
  } catch (error) {
    if (system_code(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(`${process.pid}\n`);
  } catch (error) {
    // an empty lock would block the session for a while: take it away again
    await handle.close();
    await unlink(lock_path).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return true;
}

/**
 * Takes the write lock of `file_path` by creating `<file_path>.lock` with O_EXCL and writing this
 * process's pid into it. A lock left by a process that no longer runs is taken over.
 *
 * Contract: resolves with the lock, or rejects with a `SessionError`: `locked` when a live process
 * (this one included, through another handle) holds it, naming the pid; `not_writable` when the
 * lock file cannot be created. Two processes taking over the same stale lock at the same instant
 * may both succeed; the read-back check narrows that window to a few microseconds.
 */
export async function acquire_lock(file_path: string): Promise<SessionLock> {
  const lock_path = `${file_path}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    let created: boolean;
    try {
      created = await try_create(lock_path);
    } catch (error) {
      throw new SessionError(
        'not_writable',
        `cannot create the lock file ${lock_path}: ${error_text(error)}`,
        { path: file_path, cause: error },
      );
    }
    if (created) {
      if ((await read_owner(lock_path)) === process.pid) return held(lock_path);
      continue;
    }
    const owner = await read_owner(lock_path);
    if (owner === undefined) {
      const info = await stat(lock_path).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs < UNFINISHED_LOCK_MS) {
        throw locked(file_path, lock_path, 'another process is opening it');
      }
    } else if (owner === process.pid) {
      throw locked(file_path, lock_path, 'it is already open for writing in this process');
    } else if (is_alive(owner)) {
      throw locked(file_path, lock_path, `process ${owner} has it open for writing`);
    }
    // the owner is gone: take the lock over
    await unlink(lock_path).catch(() => undefined);
  }
  throw locked(file_path, lock_path, 'another process keeps taking the lock');
}

function locked(file_path: string, lock_path: string, why: string): SessionError {
  return new SessionError(
    'locked',
    `session ${file_path} is locked: ${why} (lock file ${lock_path}; remove it only if no Lich process uses the session)`,
    { path: file_path },
  );
}

function held(lock_path: string): SessionLock {
  let released = false;
  return {
    path: lock_path,
    async release() {
      if (released) return;
      released = true;
      if ((await read_owner(lock_path)) === process.pid) {
        await unlink(lock_path).catch(() => undefined);
      }
    },
  };
}

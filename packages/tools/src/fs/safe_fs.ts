/**
 * Opening and writing files behind the guard so that a symbolic link swapped in between the check
 * and the operation cannot redirect it outside the work dir.
 */
import { randomBytes } from 'node:crypto';
import { constants, fstatSync, readlinkSync, realpathSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  error_code,
  error_text,
  type GuardedPath,
  PathGuardError,
  require_in_work_dir,
  require_in_work_dir_sync,
} from './guard.js';

/** Options of `write_file_atomic`. */
export interface AtomicWriteOptions {
  signal?: AbortSignal;
}

/** What `write_file_atomic` did. */
export interface AtomicWriteResult {
  /** The real absolute path written. */
  path: string;
  /** The path relative to the work dir. */
  relative: string;
  /** True when the file did not exist before. */
  created: boolean;
  bytes: number;
}

/**
 * Writes `content` to `path` inside `work_dir`, atomically: readers see the old file or the new
 * one, never a half-written one.
 *
 * How a swapped-in link is defeated: the path is checked by the guard (writes under `.git/` and
 * `.lich/` refused); missing parent folders are created and the parent's real path is checked
 * again; a new temp file is created with `O_EXCL | O_NOFOLLOW` in that folder, and before any
 * data goes into it the folder's real path and the temp file's identity (device and inode of the
 * entry at the expected path) are verified, so a link swapped in just before the open is caught
 * (the stray empty temp file is removed where it landed); after writing, the check is repeated;
 * then the temp file is renamed over the target (a rename replaces a link, it never writes through one,
 * and it finds the randomly named temp file only in the folder it was created in). An existing
 * file keeps its permission bits.
 *
 * Contract: throws a `PathGuardError` for a refused path or a target that is a folder, the file
 * system's error (with a short message) otherwise, and an `AbortError` when `signal` fires before
 * the rename; never leaves its temp file behind.
 */
export async function write_file_atomic(
  work_dir: string,
  path: string,
  content: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<AtomicWriteResult> {
  const { signal } = options;
  signal?.throwIfAborted();
  const target = await require_in_work_dir(work_dir, path, { for_write: true });
  let mode: number | undefined;
  if (target.exists) {
    const existing = await lstat(target.path);
    if (existing.isDirectory()) throw new PathGuardError(`'${path}' is a folder, not a file`);
    if (existing.isFile()) mode = existing.mode & 0o7777;
  }
  const parent = dirname(target.path);
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    throw new PathGuardError(`cannot create the folder of '${path}': ${error_text(error)}`);
  }
  await verify_real(parent, path);

  const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const temp = join(parent, `.lich-tmp-${randomBytes(8).toString('hex')}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let handle: FileHandle | undefined;
  let renamed = false;
  let stray: string | undefined;
  const changed = () =>
    new PathGuardError(
      `the folder of '${path}' changed while it was being written; nothing was written`,
    );
  try {
    handle = await open(temp, flags, mode ?? 0o666);
    // a link swapped in just before the open would have put the temp file elsewhere: check where
    // it landed before a single byte goes into it
    const created = await handle.stat();
    if (!(await is_at(temp, created, parent))) {
      stray = opened_path(handle.fd);
      throw changed();
    }
    await handle.writeFile(data);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.close();
    handle = undefined;
    if (!(await is_at(temp, created, parent))) throw changed();
    signal?.throwIfAborted();
    await rename(temp, target.path);
    renamed = true;
  } finally {
    await handle?.close().catch(() => {});
    if (!renamed) {
      await unlink(temp).catch(() => {});
      if (stray !== undefined && stray !== temp) await unlink(stray).catch(() => {});
    }
  }
  return {
    path: target.path,
    relative: target.relative,
    created: !target.exists,
    bytes: data.length,
  };
}

async function verify_real(folder: string, shown: string): Promise<void> {
  let real: string;
  try {
    real = await realpath(folder);
  } catch (error) {
    throw new PathGuardError(`the folder of '${shown}' cannot be used: ${error_text(error)}`);
  }
  if (real !== folder) {
    throw new PathGuardError(
      `the folder of '${shown}' changed while it was being written (now ${real}); nothing was written`,
    );
  }
}

/** Whether the file `identity` is the entry `path` in the folder whose real path is `folder`. */
async function is_at(
  path: string,
  identity: { ino: number; dev: number },
  folder: string,
): Promise<boolean> {
  try {
    if ((await realpath(folder)) !== folder) return false;
    const placed = await lstat(path);
    return placed.ino === identity.ino && placed.dev === identity.dev;
  } catch {
    return false;
  }
}

/** A path inside the work dir that exists, with what `stat` says of it. */
export interface ExistingPath {
  guarded: GuardedPath;
  /** The `stat` of `guarded.path` (links followed; the guard has checked where they lead). */
  stats: Stats;
  /** The path as the model wrote it (`.` for the work dir), for messages. */
  shown: string;
}

/**
 * Resolves `path` (the work dir when `undefined` or `''`) inside `work_dir` and stats it.
 *
 * Contract: throws a `PathGuardError` with a message for the model when the guard refuses the
 * path, nothing exists there (`'<path>' does not exist`), or it cannot be stat'ed.
 */
export function stat_in_work_dir(work_dir: string, path: string | undefined): ExistingPath {
  const guarded = require_in_work_dir_sync(work_dir, path ?? '');
  const shown = path === undefined || path === '' ? '.' : path;
  if (!guarded.exists) throw new PathGuardError(`'${shown}' does not exist`);
  let stats: Stats;
  try {
    stats = guarded.lstat ?? statSync(guarded.path);
  } catch (error) {
    throw new PathGuardError(`'${shown}': ${error_text(error)}`);
  }
  return { guarded, stats, shown };
}

/** An open file inside the work dir. The caller closes `handle`. */
export interface OpenedFile {
  handle: FileHandle;
  guarded: GuardedPath;
  size: number;
}

/**
 * Opens a regular file inside `work_dir` for reading.
 *
 * Contract: throws a `PathGuardError` with a message for the model when the guard refuses the
 * path, nothing exists there, it is a folder (naming `list_dir`) or not a regular file (a FIFO or
 * a device is never opened in a way that blocks), or it was swapped for a link between the check
 * and the open (`O_NOFOLLOW`, then the opened file's identity compared with the checked path).
 */
export async function open_in_work_dir(work_dir: string, path: string): Promise<OpenedFile> {
  const { guarded, before, shown } = regular_file_in_work_dir(work_dir, path);
  let handle: FileHandle;
  try {
    handle = await open(guarded.path, READ_FLAGS);
  } catch (error) {
    throw open_failure(error, shown);
  }
  try {
    return {
      handle,
      guarded,
      size: check_opened(handle.fd, fstatSync(handle.fd), before, guarded, shown),
    };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/** The guarded path of a regular file, with its stats, or a `PathGuardError` saying why not. */
function regular_file_in_work_dir(
  work_dir: string,
  path: string,
): { guarded: GuardedPath; before: Stats; shown: string } {
  const { guarded, stats: before, shown } = stat_in_work_dir(work_dir, path);
  if (before.isDirectory()) {
    throw new PathGuardError(
      `'${shown}' is a folder, not a file; use list_dir to see what is in it`,
    );
  }
  if (!before.isFile()) throw new PathGuardError(`'${shown}' is not a regular file`);
  return { guarded, before, shown };
}

/** How a file to read is opened: never through a final link, never blocking on a FIFO. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function open_failure(error: unknown, shown: string): PathGuardError {
  const reason =
    error_code(error) === 'ELOOP' ? 'it was replaced by a symbolic link' : error_text(error);
  return new PathGuardError(`'${shown}' cannot be opened: ${reason}`);
}

/**
 * Where the open file `fd` really is, read from Linux's `/proc` in one system call (a `realpath`
 * makes one per folder of the path); undefined where there is no `/proc`.
 */
function opened_path(fd: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const path = readlinkSync(`/proc/self/fd/${fd}`);
    // a file deleted since it was opened reads `… (deleted)`: let realpath say what is there
    return path.startsWith('/') && !path.endsWith(' (deleted)') ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Checks that the opened file is the one the guard checked; returns its size. */
function check_opened(
  fd: number,
  opened: Stats,
  before: Stats,
  guarded: GuardedPath,
  shown: string,
): number {
  try {
    const now = opened_path(fd) ?? realpathSync.native(guarded.path);
    if (now !== guarded.path || opened.ino !== before.ino || opened.dev !== before.dev) {
      throw new PathGuardError(`'${shown}' changed while it was being opened`);
    }
  } catch (error) {
    if (error instanceof PathGuardError) throw error;
    throw new PathGuardError(`'${shown}': ${error_text(error)}`);
  }
  if (!opened.isFile()) throw new PathGuardError(`'${shown}' is not a regular file`);
  return opened.size;
}

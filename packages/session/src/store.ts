import { mkdir, open, realpath, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Message } from '@lich/core';
import { resolve_images } from './blobs.js';
import { error_text, SessionError, system_code, throw_if_aborted } from './errors.js';
import { FileSessionHandle, type FsyncMode, type SessionHandle } from './handle.js';
import { list_sessions, type SessionSummary } from './list.js';
import { acquire_lock, type SessionLock } from './lock.js';
import { load_session_file, read_session_messages } from './reader.js';
import { session_file } from './session_files.js';
import { assert_session_id, new_session_id } from './session_id.js';
import type { SessionStorage } from './session_storage.js';
import { empty_state, state_of } from './state.js';

/** The folder sessions go to by default: `<work_dir>/.lich/sessions`. */
export function default_session_dir(work_dir: string): string {
  return join(resolve(work_dir), '.lich', 'sessions');
}

/** Options of a `SessionStore`. */
export interface SessionStoreOptions {
  /** The folder of the session files; callers pass it (default: `default_session_dir`). */
  session_dir: string;
  /** `run_end` (default): flush to disk after each run; `record`: after every record. */
  fsync?: FsyncMode;
  /** The clock, for tests. */
  now?: () => Date;
  /**
   * A folder the session dir must resolve inside, links followed (the work dir, when the session
   * dir was not set explicitly): a repository that ships `.lich` as a link to a folder elsewhere
   * then gets no transcript written there. `create` and `open` refuse with `not_writable`.
   */
  confined_to?: string;
  /** Where pictures are stored by hash (default: `default_blob_dir` of the session dir). */
  blob_dir?: string;
}

/**
 * Where the pictures of the sessions in `session_dir` are kept: `blobs` beside a folder named
 * `sessions` (so `.lich/sessions` has `.lich/blobs`), else `blobs` inside it.
 */
export function default_blob_dir(session_dir: string): string {
  const dir = resolve(session_dir);
  return basename(dir) === 'sessions' ? join(dirname(dir), 'blobs') : join(dir, 'blobs');
}

/** What a new session is created with. */
export interface CreateSessionOptions {
  work_dir: string;
  model: string;
  lich_version: string;
  /** The id to use; default a new sortable id (`new_session_id`). */
  id?: string;
  /** The session that started this one (a subagent's parent), recorded in `session_start`. */
  parent_session_id?: string;
  signal?: AbortSignal;
}

/** Options of `SessionStore.open`. */
export interface OpenSessionOptions {
  /** Move bad lines in the middle of the file to `<file>.corrupt` instead of refusing to open. */
  repair?: boolean;
  signal?: AbortSignal;
}

/**
 * A folder of session transcripts, one append-only JSONL file per session: `<id>.jsonl`.
 *
 * Contract: `create` and `open` resolve with a handle holding the session's write lock, or
 * reject with a `SessionError`: `invalid_id`, `not_writable` (the folder or file cannot be
 * created, with the system's reason), `exists` (create never overwrites), `not_found`, `locked`
 * (another live process writes the session), `not_jsonl`, `corrupt`, `newer_version` (nothing is
 * changed in those cases), or `aborted` when `signal` fired first.
 */
export class SessionStore implements SessionStorage {
  readonly session_dir: string;
  /** Where pictures are stored by hash (see `SessionStoreOptions.blob_dir`). */
  readonly blob_dir: string;
  readonly #fsync: FsyncMode;
  readonly #now: () => Date;

  constructor(options: SessionStoreOptions) {
    if (typeof options.session_dir !== 'string' || options.session_dir === '') {
      throw new TypeError('SessionStore needs a session_dir');
    }
    this.session_dir = resolve(options.session_dir);
    this.blob_dir = resolve(options.blob_dir ?? default_blob_dir(this.session_dir));
    this.#fsync = options.fsync ?? 'run_end';
    this.#now = options.now ?? (() => new Date());
    if (options.confined_to !== undefined) this.#confined_to = resolve(options.confined_to);
  }

  readonly #confined_to: string | undefined;

  /** Refuses a session dir that resolves outside `confined_to` (see the option). */
  async #check_confined(path: string): Promise<void> {
    if (this.#confined_to === undefined) return;
    let real_dir: string | undefined;
    let real_root: string;
    try {
      real_root = await realpath(this.#confined_to);
    } catch {
      return;
    }
    // the deepest part that exists, links resolved: where a mkdir would go
    for (let at = this.session_dir; real_dir === undefined; at = dirname(at)) {
      try {
        real_dir = await realpath(at);
      } catch {
        if (dirname(at) === at) return;
      }
    }
    const rest = relative(real_root, real_dir);
    if (rest === '' || (rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest))) return;
    throw new SessionError(
      'not_writable',
      `the session folder ${this.session_dir} leads to ${real_dir}, outside ${this.#confined_to}, through a link: no transcript is written there. Remove the link, or set session_dir (or LICH_SESSION_DIR) to say where transcripts go.`,
      { path },
    );
  }

  /** The folder, as `SessionStorage.location`. */
  get location(): string {
    return this.session_dir;
  }

  /** The conversation of session `id` (problems of the file are warned about on stderr). */
  read(id: string, options: { signal?: AbortSignal } = {}): Promise<Message[]> {
    return read_session_messages(this.path_of(id), options).then((messages) =>
      resolve_images(messages, this.blob_dir),
    );
  }

  /** `messages` with the bytes of their stored pictures read back from `blob_dir`. */
  load_images(messages: Message[]): Promise<Message[]> {
    return resolve_images(messages, this.blob_dir);
  }

  /** Every session of the folder, most recently updated first (`list_sessions`). */
  list(options: { signal?: AbortSignal } = {}): Promise<SessionSummary[]> {
    return list_sessions(this.session_dir, options);
  }

  /**
   * Deletes session `id`'s file (and a `.corrupt` file beside it). Resolves false when there was
   * none; rejects with `locked` while a live process holds it.
   */
  async delete(id: string): Promise<boolean> {
    const path = this.path_of(id);
    try {
      await stat(path);
    } catch {
      return false;
    }
    const lock = await acquire_lock(path);
    try {
      await unlink(path);
      await unlink(`${path}.corrupt`).catch(() => undefined);
      return true;
    } catch (error) {
      if (system_code(error) === 'ENOENT') return false;
      throw new SessionError('not_writable', `cannot delete ${path}: ${error_text(error)}`, {
        path,
        cause: error,
      });
    } finally {
      await lock.release();
    }
  }

  /** The file of session `id`. Throws a `SessionError` (`invalid_id`) for an unsafe id. */
  path_of(id: string): string {
    assert_session_id(id);
    return session_file(this.session_dir, id);
  }

  /** Creates a new session file and writes its `session_start` record. */
  async create(options: CreateSessionOptions): Promise<SessionHandle> {
    const now = this.#now();
    const id = options.id ?? new_session_id(now);
    const path = this.path_of(id);
    throw_if_aborted(options.signal, `creating session ${id}`);
    await this.#check_confined(path);
    try {
      await mkdir(this.session_dir, { recursive: true });
    } catch (error) {
      throw new SessionError(
        'not_writable',
        `cannot create the session folder ${this.session_dir}: ${error_text(error)}`,
        { path, cause: error },
      );
    }
    await this.#check_confined(path);
    const lock = await acquire_lock(path);
    let file: Awaited<ReturnType<typeof open>>;
    try {
      file = await open(path, 'wx', 0o644);
    } catch (error) {
      await lock.release();
      if (system_code(error) === 'EEXIST') {
        throw new SessionError('exists', `session ${id} already exists at ${path}`, { path });
      }
      throw new SessionError(
        'not_writable',
        `cannot create session file ${path}: ${error_text(error)}`,
        { path, cause: error },
      );
    }
    const handle = new FileSessionHandle({
      id,
      path,
      file,
      size: 0,
      lock,
      fsync: this.#fsync,
      state: empty_state(),
      problems: [],
      now: this.#now,
      blob_dir: this.blob_dir,
    });
    try {
      await handle.append({
        type: 'session_start',
        at: now.toISOString(),
        id,
        created: now.toISOString(),
        work_dir: options.work_dir,
        model: options.model,
        lich_version: options.lich_version,
        ...(options.parent_session_id === undefined
          ? {}
          : { parent_session_id: options.parent_session_id }),
      });
    } catch (error) {
      await handle.close();
      await unlink(path).catch(() => undefined);
      throw error;
    }
    return handle;
  }

  /**
   * Opens an existing session for appending. A torn last line (a crash mid-write) is moved to
   * `<file>.corrupt` and cut, so the next record starts on its own line; `state` holds what the
   * file holds (conversation, runs, usage).
   */
  async open(id: string, options: OpenSessionOptions = {}): Promise<SessionHandle> {
    const path = this.path_of(id);
    throw_if_aborted(options.signal, `opening session ${id}`);
    await this.#check_confined(path);
    try {
      await stat(path);
    } catch (error) {
      if (system_code(error) === 'ENOENT') {
        throw new SessionError('not_found', `no session ${id} in ${this.session_dir}`, { path });
      }
      throw new SessionError('not_found', `cannot open session ${path}: ${error_text(error)}`, {
        path,
        cause: error,
      });
    }
    const lock: SessionLock = await acquire_lock(path);
    try {
      const contents = await load_session_file(path, {
        repair: options.repair === true,
        fix_tail: true,
      });
      const file = await open(path, 'r+').catch((error: unknown) => {
        throw new SessionError(
          'not_writable',
          `cannot open session ${path} for writing: ${error_text(error)}`,
          { path, cause: error },
        );
      });
      const size = (await file.stat()).size;
      return new FileSessionHandle({
        id,
        path,
        file,
        size,
        lock,
        fsync: this.#fsync,
        state: state_of(contents.records),
        problems: contents.problems,
        now: this.#now,
        blob_dir: this.blob_dir,
      });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }
}

import type { FileHandle } from 'node:fs/promises';
import { externalize_images, write_blobs } from './blobs.js';
import { error_text, SessionError, system_code } from './errors.js';
import type { SessionLock } from './lock.js';
import type { SessionProblem } from './reader.js';
import {
  record_line,
  type SessionRecord,
  type SessionRecordInput,
  stamp_record,
} from './records.js';
import { apply_record, type SessionState } from './state.js';

/** When a handle flushes the file to disk: after every record, or at `run_end` (and close). */
export type FsyncMode = 'record' | 'run_end';

/** Options of one `SessionHandle.append`. */
export interface AppendOptions {
  /** When it has fired before the record's turn to be written, the record is not written. */
  signal?: AbortSignal;
}

/**
 * An open session file, for appending. Obtained from `SessionStore.create` or `.open`; the
 * process holds the session's write lock until `close`.
 *
 * Contract:
 * - `append` writes one record as one full line, in call order: appends never interleave, each is
 *   written by the time its promise resolves, and the file is flushed to disk after a `run_end`
 *   record (after every record with `fsync: 'record'`).
 * - A failed write (disk full, file too large, I/O error) removes the partial line again, so the
 *   file still ends on a complete record, and rejects with a `SessionError` (`write_failed`); a
 *   later append is tried normally. `failed_writes` counts such failures.
 * - `state` folds every record accepted by `append`, at the time of the call (before it is
 *   written): the conversation, the run count and the total usage the session holds.
 * - After `close`, `append` rejects with `closed`; `close` is idempotent and never rejects.
 */
export interface SessionHandle {
  readonly id: string;
  /** The session file. */
  readonly path: string;
  readonly state: Readonly<SessionState>;
  /** How many appends failed since the handle was opened. */
  readonly failed_writes: number;
  /** What was found (and fixed) in the file when it was opened: a torn tail, repaired lines. */
  readonly problems: readonly SessionProblem[];
  readonly closed: boolean;
  append(record: SessionRecordInput, options?: AppendOptions): Promise<void>;
  /** Waits for every pending append, then flushes the file to disk. */
  flush(options?: AppendOptions): Promise<void>;
  /** Waits for pending appends, flushes, closes the file and releases the lock. */
  close(): Promise<void>;
}

/** What a handle is made from. Internal to the package. */
export interface HandleInit {
  id: string;
  path: string;
  file: FileHandle;
  size: number;
  lock: SessionLock;
  fsync: FsyncMode;
  state: SessionState;
  problems: readonly SessionProblem[];
  now: () => Date;
  /** Where the pictures of appended records are stored (see `externalize_images`). */
  blob_dir: string;
}

/** The file-backed `SessionHandle`. */
export class FileSessionHandle implements SessionHandle {
  readonly id: string;
  readonly path: string;
  readonly state: SessionState;
  readonly problems: readonly SessionProblem[];
  readonly #file: FileHandle;
  readonly #lock: SessionLock;
  readonly #fsync: FsyncMode;
  readonly #now: () => Date;
  readonly #blob_dir: string;
  #size: number;
  /** True when a rollback failed: the next write first cuts the file back to `#size`. */
  #tail_dirty = false;
  #queue: Promise<void> = Promise.resolve();
  #failed_writes = 0;
  #closing: Promise<void> | undefined;

  constructor(init: HandleInit) {
    this.id = init.id;
    this.path = init.path;
    this.#file = init.file;
    this.#size = init.size;
    this.#lock = init.lock;
    this.#fsync = init.fsync;
    this.state = init.state;
    this.problems = init.problems;
    this.#now = init.now;
    this.#blob_dir = init.blob_dir;
  }

  get failed_writes(): number {
    return this.#failed_writes;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  append(input: SessionRecordInput, options: AppendOptions = {}): Promise<void> {
    if (this.#closing !== undefined) {
      return Promise.reject(
        new SessionError('closed', `session ${this.path} is closed; open it again to append`, {
          path: this.path,
        }),
      );
    }
    let record: SessionRecord;
    let line: Buffer;
    let blobs: ReturnType<typeof externalize_images>['blobs'];
    try {
      record = stamp_record(input, this.#now().toISOString());
      const stored = externalize_images(record);
      blobs = stored.blobs;
      line = Buffer.from(record_line(stored.value), 'utf8');
    } catch (error) {
      return Promise.reject(
        new SessionError(
          'invalid_record',
          `cannot serialise a ${input.type} record: ${error_text(error)}`,
          { path: this.path, cause: error },
        ),
      );
    }
    apply_record(this.state, record);
    const task = this.#queue.then(async () => {
      if (blobs.size > 0) await this.#write_blobs(record, blobs);
      await this.#write(record, line, options.signal);
    });
    this.#queue = task.catch(() => undefined);
    return task;
  }

  async #write(record: SessionRecord, line: Buffer, signal: AbortSignal | undefined) {
    if (signal?.aborted) {
      this.#failed_writes += 1;
      throw new SessionError('aborted', `appending a ${record.type} record was aborted`, {
        path: this.path,
        cause: signal.reason,
      });
    }
    try {
      if (this.#tail_dirty) {
        await this.#file.truncate(this.#size);
        this.#tail_dirty = false;
      }
      let written = 0;
      while (written < line.length) {
        const { bytesWritten } = await this.#file.write(
          line,
          written,
          line.length - written,
          this.#size + written,
        );
        if (bytesWritten === 0) throw new Error('the file accepted no bytes');
        written += bytesWritten;
      }
    } catch (error) {
      this.#failed_writes += 1;
      const rolled_back = await this.#file.truncate(this.#size).then(
        () => true,
        () => false,
      );
      this.#tail_dirty = !rolled_back;
      const code = system_code(error);
      throw new SessionError(
        'write_failed',
        `could not write a ${record.type} record to session ${this.path}: ${error_text(error)}${code === 'ENOSPC' ? ' (the disk is full)' : code === 'EFBIG' ? ' (the file size limit was reached)' : ''}; ${rolled_back ? 'the partial record was removed' : 'the partial record will be removed before the next write'}`,
        { path: this.path, cause: error },
      );
    }
    this.#size += line.length;
    if (this.#fsync === 'record' || record.type === 'run_end') await this.#sync();
  }

  async #write_blobs(record: SessionRecord, blobs: Map<string, Buffer>): Promise<void> {
    try {
      await write_blobs(this.#blob_dir, blobs);
    } catch (error) {
      this.#failed_writes += 1;
      throw new SessionError(
        'write_failed',
        `could not store the pictures of a ${record.type} record in ${this.#blob_dir}: ${error_text(error)}; the record was not written`,
        { path: this.path, cause: error },
      );
    }
  }

  async #sync(): Promise<void> {
    try {
      await this.#file.sync();
    } catch (error) {
      throw new SessionError(
        'write_failed',
        `could not flush session ${this.path} to disk: ${error_text(error)}`,
        { path: this.path, cause: error },
      );
    }
  }

  async flush(options: AppendOptions = {}): Promise<void> {
    await this.#queue;
    if (options.signal?.aborted) {
      throw new SessionError('aborted', `flushing session ${this.path} was aborted`, {
        path: this.path,
        cause: options.signal.reason,
      });
    }
    if (this.#closing === undefined) await this.#sync();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#queue;
      await this.#file.sync().catch(() => undefined);
      await this.#file.close().catch(() => undefined);
      await this.#lock.release();
    })();
    return this.#closing;
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRawSync, constants as zlib_constants } from 'node:zlib';
import { CheckpointError, error_text, system_code } from './errors.js';
import type { StoreLayout } from './store_layout.js';

/** A SHA-256, as 64 lowercase hex digits. */
const HASH = /^[0-9a-f]{64}$/;

/** The SHA-256 of `data`, in hex. */
export function hash_of(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** True for a string shaped like the names this store gives objects. */
export function is_hash(value: string): boolean {
  return HASH.test(value);
}

const deflate_async = promisify(deflateRaw);

/** The first byte of a stored object: its content as is, or deflated. */
const RAW = 0;
const DEFLATED = 1;

/** Contents smaller than this are stored as they are. */
const COMPRESS_FROM = 128;

/** Deflated contents are kept only when they save at least this share. */
const KEEP_DEFLATED_BELOW = 0.9;

const DEFLATE_OPTIONS = { level: zlib_constants.Z_BEST_SPEED };

function stored_form(data: Buffer, deflated: Buffer | undefined): Buffer[] {
  if (deflated !== undefined && deflated.length < data.length * KEEP_DEFLATED_BELOW) {
    return [Buffer.of(DEFLATED), deflated];
  }
  return [Buffer.of(RAW), data];
}

/** A name for a file being written, unique to this process; its pid lets a prune tell it is stale. */
export function tmp_name(): string {
  return `${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * File contents and folder listings, each stored once under the SHA-256 of the content
 * (`objects/ab/cdef…`): one byte saying how it is stored (0 as is, 1 deflated, when that saves
 * a tenth or more), then the bytes. An object is written to `tmp/` and renamed into place, so its
 * name never points at part of it; a reader checks the hash of what it reads back, so a damaged
 * object is an error, never restored.
 */
export class ObjectStore {
  readonly #layout: StoreLayout;
  /** Objects known to exist: no `stat` to find them again. */
  readonly #known = new Set<string>();
  readonly #fanout = new Set<string>();
  /** Writes under way, so two files with one content are written once. */
  readonly #pending = new Map<string, Promise<number>>();

  constructor(layout: StoreLayout) {
    this.#layout = layout;
  }

  /** The path of object `hash`. */
  path_of(hash: string): string {
    return join(this.#layout.objects, hash.slice(0, 2), hash.slice(2));
  }

  /** Tells the store that `hash` exists (read from the index or a tree). */
  note_known(hash: string): void {
    this.#known.add(hash);
  }

  /** Forgets what it knew: after a prune, objects may be gone. */
  forget(): void {
    this.#known.clear();
  }

  /** True when object `hash` is in the store. */
  has(hash: string): boolean {
    if (this.#known.has(hash)) return true;
    if (existsSync(this.path_of(hash))) {
      this.#known.add(hash);
      return true;
    }
    return false;
  }

  #fanout_dir(hash: string): string {
    const dir = join(this.#layout.objects, hash.slice(0, 2));
    if (!this.#fanout.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.#fanout.add(dir);
    }
    return dir;
  }

  /**
   * Stores `data` under `hash` (its SHA-256, computed by the caller) unless it is there already.
   * Resolves with the bytes written (0 when it was there). Rejects with a `CheckpointError`
   * (`not_writable`).
   */
  put(hash: string, data: Buffer): Promise<number> {
    if (this.has(hash)) return Promise.resolve(0);
    const running = this.#pending.get(hash);
    if (running !== undefined) return running.then(() => 0);
    const write = this.#write(hash, data).finally(() => this.#pending.delete(hash));
    this.#pending.set(hash, write);
    return write;
  }

  async #write(hash: string, data: Buffer): Promise<number> {
    const tmp = join(this.#layout.tmp, tmp_name());
    let form: Buffer[];
    try {
      this.#fanout_dir(hash);
      const deflated =
        data.length >= COMPRESS_FROM ? await deflate_async(data, DEFLATE_OPTIONS) : undefined;
      form = stored_form(data, deflated);
      await writeFile(tmp, Buffer.concat(form), { flag: 'wx', mode: 0o444 });
      await rename(tmp, this.path_of(hash));
    } catch (error) {
      await rm(tmp, { force: true }).catch(() => undefined);
      throw new CheckpointError(
        'not_writable',
        `cannot store a file in ${this.#layout.root}: ${error_text(error)}`,
        { cause: error },
      );
    }
    this.#known.add(hash);
    return form[0]!.length + form[1]!.length;
  }

  /**
   * `put` for small data (folder listings), synchronously. Returns the bytes written (0 when the
   * object was there already).
   */
  put_sync(hash: string, text: string): number {
    if (this.has(hash)) return 0;
    const tmp = join(this.#layout.tmp, tmp_name());
    const data = Buffer.from(text);
    const form = stored_form(
      data,
      data.length >= COMPRESS_FROM ? deflateRawSync(data, DEFLATE_OPTIONS) : undefined,
    );
    try {
      this.#fanout_dir(hash);
      writeFileSync(tmp, Buffer.concat(form), { flag: 'wx', mode: 0o444 });
      renameSync(tmp, this.path_of(hash));
    } catch (error) {
      rmSync(tmp, { force: true });
      throw new CheckpointError(
        'not_writable',
        `cannot store a file in ${this.#layout.root}: ${error_text(error)}`,
        { cause: error },
      );
    }
    this.#known.add(hash);
    return form[0]!.length + form[1]!.length;
  }

  /**
   * The content of object `hash`, checked against its hash. Throws a `CheckpointError`
   * (`corrupt`) when the object is missing or damaged.
   */
  read(hash: string): Buffer {
    let data: Buffer;
    try {
      const stored = readFileSync(this.path_of(hash));
      const body = stored.subarray(1);
      data = stored[0] === DEFLATED ? inflateRawSync(body) : body;
      if (stored[0] !== DEFLATED && stored[0] !== RAW) throw new Error('unknown storage byte');
    } catch (error) {
      const what =
        system_code(error) === 'ENOENT' ? 'is missing' : `cannot be read (${error_text(error)})`;
      throw new CheckpointError(
        'corrupt',
        `object ${hash.slice(0, 12)} of ${this.#layout.root} ${what}`,
        { cause: error },
      );
    }
    if (hash_of(data) !== hash) {
      throw new CheckpointError(
        'corrupt',
        `object ${hash.slice(0, 12)} of ${this.#layout.root} does not match its hash`,
      );
    }
    return data;
  }
}

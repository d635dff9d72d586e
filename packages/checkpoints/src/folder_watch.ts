import { type FSWatcher, readFileSync, watch } from 'node:fs';
import { basename } from 'node:path';
import type { FolderHints } from './scan.js';

/** Folders watched at most: past this a work folder is walked every time. */
export const MAX_WATCHED_FOLDERS = 10_000;

/**
 * The folders one store may watch: `MAX_WATCHED_FOLDERS`, and at most a quarter of the user's
 * inotify watches (`fs.inotify.max_user_watches`, 8,192 on older kernels), which editors and
 * file watchers share: a checkpoint store must not leave them short.
 */
export function watch_budget(read = (path: string) => readFileSync(path, 'utf8')): number {
  try {
    const limit = Number(read('/proc/sys/fs/inotify/max_user_watches').trim());
    if (Number.isInteger(limit) && limit > 0) {
      return Math.min(MAX_WATCHED_FOLDERS, Math.floor(limit / 4));
    }
  } catch {
    // no /proc: the constant alone
  }
  return MAX_WATCHED_FOLDERS;
}

/** Waits until the file notifications already queued by the kernel have been delivered. */
async function drain_notifications(): Promise<void> {
  // two turns of the event loop: the first may run before its poll phase reads the queue
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** A scan's hints, and what it saw of the folders. */
export interface WatchScan extends FolderHints {
  /** The folders' ctimes this scan saw. */
  readonly ctimes: Map<string, number>;
}

/**
 * What changed in a work folder between two scans, learnt from the kernel's file notifications
 * (one `fs.watch` per folder; inotify on Linux), so that a checkpoint in a long-lived process
 * (the TUI, `lich chat`, `lich serve`) lists and stats only the folders something happened in,
 * instead of every file. Git's fsmonitor does the same; like it, this is a hint on top of a walk
 * that is always right:
 * - the first two scans of a store read everything; folders are watched from the second on, and a
 *   folder is trusted only by a scan whose previous scan it was watched through;
 * - a folder that was moved or removed is watched afresh (its watch followed the old one);
 * - a folder whose ctime moved (an entry created, removed or renamed) is read whatever the
 *   notifications said, which covers a lost notification for every change but a file rewritten
 *   in place;
 * - an aborted or failed scan, another process's index, a watcher's error, or more than
 *   `watch_budget()` folders (10,000, or a quarter of the user's inotify watches): the next
 *   scan reads everything (and the last two stop the
 *   watching for good);
 * - only on Linux: elsewhere `fs.watch` on many folders is slow to set up or not per folder, and
 *   every scan is a full walk.
 * Changes the kernel does not report through the folder are not seen: a file written through a
 * hard link from outside the work folder, or through a shared memory map. `watch: false` on the
 * store turns this off.
 */
export class FolderWatch {
  readonly #work_dir: string;
  readonly #watchers = new Map<string, FSWatcher>();
  /** The first scan each watched folder was watched through. */
  readonly #armed_at = new Map<string, number>();
  /** Folders notified since the current scan began. */
  #dirty = new Set<string>();
  /** Scans begun. */
  #scans = 0;
  /** The last scan ended well, and its index is the one the next scan starts from. */
  #based = false;
  #ctimes = new Map<string, number>();
  #excluded: readonly string[] = [];
  #stopped: boolean;

  readonly #max_folders: number;

  /** `max_folders`: default `watch_budget()`. */
  constructor(work_dir: string, options: { max_folders?: number } = {}) {
    this.#work_dir = work_dir;
    this.#stopped = process.platform !== 'linux';
    this.#max_folders = options.max_folders ?? (this.#stopped ? 0 : watch_budget());
  }

  /** Folders being watched now. */
  get watched(): number {
    return this.#watchers.size;
  }

  /**
   * Begins a scan whose index's folders are `folders`: watches them from the second scan on, then
   * takes the notifications so far. With `full`, or when the previous scan cannot be built on,
   * every folder is read.
   */
  async begin(folders: Iterable<string>, full = false): Promise<WatchScan> {
    const scan = this.#scans++;
    if (scan === 1) this.#arm(folders, scan);
    await drain_notifications();
    const dirty = this.#dirty;
    this.#dirty = new Set();
    const trusting = this.#based && !full && !this.#stopped;
    this.#based = false;
    const previous = this.#ctimes;
    const armed_at = this.#armed_at;
    const ctimes = new Map<string, number>();
    return {
      ctimes,
      excluded: trusting ? this.#excluded : [],
      unchanged: (rel, ctime_ms) =>
        trusting &&
        !dirty.has(rel) &&
        (armed_at.get(rel) ?? scan) < scan &&
        previous.get(rel) === ctime_ms,
      seen: (rel, ctime_ms) => {
        ctimes.set(rel, ctime_ms);
      },
    };
  }

  /**
   * Ends scan `scan` well: its index (with folders `folders`) is the one the next scan starts
   * from. Watches the folders new since, stops watching those gone.
   */
  end(scan: WatchScan, folders: ReadonlyMap<string, unknown>, excluded: readonly string[]): void {
    if (this.#stopped) return;
    this.#ctimes = scan.ctimes;
    this.#excluded = excluded;
    for (const rel of [...this.#watchers.keys()]) {
      if (!folders.has(rel)) this.#drop(rel);
    }
    if (this.#scans >= 2) this.#arm(folders.keys(), this.#scans);
    this.#based = !this.#stopped;
  }

  /** The next scan reads everything (another process wrote the index). */
  reset(): void {
    this.#based = false;
  }

  /** Stops watching, for good. */
  close(): void {
    this.#stopped = true;
    this.#based = false;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    this.#armed_at.clear();
  }

  #drop(rel: string): void {
    this.#watchers.get(rel)?.close();
    this.#watchers.delete(rel);
    this.#armed_at.delete(rel);
  }

  /** Watches each of `folders` not watched yet; the first scan it covers is `scan`. */
  #arm(folders: Iterable<string>, scan: number): void {
    if (this.#stopped) return;
    for (const rel of folders) {
      if (this.#watchers.has(rel)) continue;
      if (this.#watchers.size >= this.#max_folders) {
        this.close();
        return;
      }
      let watcher: FSWatcher;
      try {
        watcher = watch(rel === '' ? this.#work_dir : `${this.#work_dir}/${rel}`, {
          persistent: false,
        });
      } catch (error) {
        // gone since the scan: the next scan reads its parent anyway
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        // out of watches (ENOSPC) or descriptors: walk every time rather than hold them
        this.close();
        return;
      }
      const own_name = rel === '' ? basename(this.#work_dir) : basename(rel);
      watcher.on('change', (event, name) => {
        this.#dirty.add(rel);
        // the folder itself moved or removed (or an entry of its own name): its watch may be on
        // another folder now, so it is watched afresh after the next scan
        if (event === 'rename' && (name === null || name === own_name)) this.#drop(rel);
      });
      watcher.on('error', () => this.close());
      this.#watchers.set(rel, watcher);
      this.#armed_at.set(rel, scan);
    }
  }
}

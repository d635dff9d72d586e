import { join } from 'node:path';

/** Where a work folder's checkpoints live, relative to the work folder. */
export const STORE_FOLDER = join('.lich', 'checkpoints');

/** The files and folders of one store. */
export interface StoreLayout {
  /** The store folder: `<work_dir>/.lich/checkpoints`. */
  readonly root: string;
  /** File contents and folder listings, named by their SHA-256: `objects/ab/cdef…`. */
  readonly objects: string;
  /** One small JSON file per checkpoint: `records/<id>.json`. */
  readonly records: string;
  /** Files being written; renamed into place when complete, so a reader never sees half of one. */
  readonly tmp: string;
  /** The stat cache (size, mtime, ctime, inode, mode and hash of each file). */
  readonly index: string;
  /** Held while a checkpoint, a restore or a prune runs; holds the owner's pid. */
  readonly lock: string;
}

/** The layout of the store at `root`. */
export function store_layout(root: string): StoreLayout {
  return {
    root,
    objects: join(root, 'objects'),
    records: join(root, 'records'),
    tmp: join(root, 'tmp'),
    index: join(root, 'index.json'),
    lock: join(root, 'lock'),
  };
}

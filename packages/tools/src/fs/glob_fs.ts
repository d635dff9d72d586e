import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FileSystemAdapter } from 'tinyglobby';
import type { GitIgnoreFilter } from './gitignore.js';

/** What `list_dir` and `glob` add after a name whose bytes are not valid UTF-8. */
export const NOT_UTF8_MARK = ' [name is not valid UTF-8]';

/** A folder entry as the walker sees it: a text name, and what kind of entry it is. */
type WalkEntry = Pick<Dirent<string>, 'name' | 'isFile' | 'isDirectory' | 'isSymbolicLink'>;

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: WalkEntry[]) => void;

const strict_utf8 = new TextDecoder('utf-8', { fatal: true });

/** The name as text, or `undefined` when its bytes are not valid UTF-8. */
export function decode_name(raw: Buffer): string | undefined {
  try {
    return strict_utf8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * The file system a glob walks: folder listings read as bytes, so a folder whose name is not
 * valid UTF-8 can still be opened (its text name holds U+FFFD and could not be), and what
 * `.gitignore` ignores left out, so ignored folders (`node_modules/`, `dist/`) are never walked.
 *
 * Contract: `adapter` is what tinyglobby (fdir) calls: `readdir(path, { withFileTypes }, cb)`
 * only, with the walk always asynchronous; a listing that fails gives the error and no entries.
 * `is_marked(path)` says whether an absolute path the walk returned passes through a name that is
 * not valid UTF-8 (shown with U+FFFD).
 */
export class GlobFileSystem {
  readonly #filter: GitIgnoreFilter;
  /** Text path (absolute, U+FFFD in it) → the real bytes, for every entry under a bad name. */
  readonly #raw = new Map<string, Buffer>();

  constructor(filter: GitIgnoreFilter) {
    this.#filter = filter;
  }

  /** The adapter tinyglobby takes as its `fs` option. */
  get adapter(): FileSystemAdapter {
    // fdir calls only readdir, with exactly these arguments; Node's overload set cannot be matched
    const adapter = {
      readdir: (path: string, _options: unknown, callback: ReaddirCallback) =>
        this.#readdir(path, callback),
      readdirSync: () => {
        throw new Error('glob walks asynchronously');
      },
    };
    return adapter as unknown as FileSystemAdapter;
  }

  /** True when the absolute `path` (as the walk returned it) holds a name that is not UTF-8. */
  is_marked(path: string): boolean {
    return this.#raw.has(resolve(path));
  }

  #readdir(path: string, callback: ReaddirCallback): void {
    const folder = resolve(path);
    const raw_folder = this.#raw.get(folder);
    const target = raw_folder ?? folder;
    readdir(target, { withFileTypes: true, encoding: 'buffer' }, (error, entries) => {
      if (error) {
        callback(error, []);
        return;
      }
      const kept: WalkEntry[] = [];
      for (const entry of entries as Dirent<Buffer>[]) {
        const raw_name = entry.name;
        const decoded = decode_name(raw_name);
        const name = decoded ?? raw_name.toString('utf8');
        const full = join(folder, name);
        if (decoded === undefined || raw_folder !== undefined) {
          const base = raw_folder ?? Buffer.from(folder);
          this.#raw.set(full, Buffer.concat([base, Buffer.from('/'), raw_name]));
        }
        if (this.#filter.ignores(full, entry.isDirectory())) continue;
        kept.push({
          name,
          isFile: () => entry.isFile(),
          isDirectory: () => entry.isDirectory(),
          isSymbolicLink: () => entry.isSymbolicLink(),
        });
      }
      callback(null, kept);
    });
  }
}

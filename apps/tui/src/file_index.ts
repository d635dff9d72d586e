/**
 * The work dir's files for `@path` completion: walked once in the background, skipping version
 * control, dependency and build folders and whatever is hidden, capped so a huge tree costs
 * little.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const SKIP = new Set([
  'node_modules',
  'dist',
  'build',
  'coverage',
  'target',
  'out',
  '__pycache__',
  'venv',
]);

/** Paths found so far (folders end with `/`), relative to the work dir, sorted. */
export interface FileIndex {
  files(): readonly string[];
  /** Resolves when the walk is over (it never rejects). */
  ready: Promise<void>;
}

/** Walks `work_dir` breadth first, at most `limit` entries and `depth` folders deep. */
export function index_files(
  work_dir: string,
  options: { limit?: number; depth?: number } = {},
): FileIndex {
  const limit = options.limit ?? 5000;
  const max_depth = options.depth ?? 8;
  let found: string[] = [];
  const ready = (async () => {
    const paths: string[] = [];
    let level = [''];
    for (let depth = 0; depth < max_depth && level.length > 0 && paths.length < limit; depth += 1) {
      const next: string[] = [];
      for (const folder of level) {
        const entries = await readdir(join(work_dir, folder), { withFileTypes: true }).catch(
          () => [],
        );
        for (const entry of entries) {
          if (entry.name.startsWith('.') || paths.length >= limit) continue;
          const path = folder === '' ? entry.name : `${folder}${entry.name}`;
          if (entry.isDirectory()) {
            if (SKIP.has(entry.name)) continue;
            paths.push(`${path}/`);
            next.push(`${path}/`);
          } else {
            paths.push(path);
          }
        }
      }
      level = next;
      found = [...paths].sort();
    }
    found = paths.sort();
  })();
  return { files: () => found, ready };
}

import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** What one path is, exactly: kind, permission bits, and content or link target. */
export interface PathState {
  readonly kind: 'file' | 'link' | 'dir';
  readonly mode: number;
  readonly content?: string;
  readonly target?: string;
}

/**
 * Everything under `root` (but `.lich/`), by relative path: the test's view of a work folder,
 * byte for byte (contents as base64), with modes and link targets.
 */
export function fs_state(
  root: string,
  options: { skip?: readonly string[] } = {},
): Record<string, PathState> {
  const skip = new Set(['.lich', ...(options.skip ?? [])]);
  const out: Record<string, PathState> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (skip.has(path)) continue;
      const full = join(root, path);
      const info = lstatSync(full);
      if (info.isSymbolicLink()) {
        out[path] = { kind: 'link', mode: 0, target: readlinkSync(full) };
      } else if (info.isDirectory()) {
        out[path] = { kind: 'dir', mode: info.mode & 0o7777 };
        walk(path);
      } else {
        out[path] = {
          kind: 'file',
          mode: info.mode & 0o7777,
          content: readFileSync(full).toString('base64'),
        };
      }
    }
  };
  walk('');
  return out;
}

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A temporary folder and the function that removes it. */
export interface TempDir {
  /** The folder's real path (symlinks such as macOS `/var` resolved). */
  path: string;
  /** Removes the folder and everything in it. Idempotent; never throws. */
  cleanup(): Promise<void>;
}

/**
 * Creates a fresh folder under the OS temp dir, optionally with files in it
 * (`{ 'src/a.ts': 'text' }`, parent folders made as needed).
 */
export async function make_temp_dir(
  options: { prefix?: string; files?: Record<string, string> } = {},
): Promise<TempDir> {
  const created = await mkdtemp(join(tmpdir(), options.prefix ?? 'lich-test-'));
  const path = await realpath(created);
  for (const [relative, content] of Object.entries(options.files ?? {})) {
    const target = join(path, relative);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return {
    path,
    cleanup: () => rm(path, { recursive: true, force: true }).catch(() => undefined),
  };
}

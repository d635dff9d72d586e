import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

function error_code(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null
    ? (error as { code?: string }).code
    : undefined;
}

/** Reads a JSON file; `undefined` when it does not exist. Throws on anything else. */
export async function read_json_file(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error_code(error) === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as unknown;
}

/**
 * Writes `value` as JSON to `path` with mode 0600 (its folder 0700), atomically: a reader sees the
 * old file or the new one, never half of one.
 */
export async function write_private_json(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** How long `with_file_lock` waits for a lock, and when a left-over lock is stale. */
export interface FileLockOptions {
  /** Give up after this long (default 5 s). */
  wait_ms?: number;
  /** A lock file older than this was left by a crash and is taken over (default 30 s). */
  stale_ms?: number;
}

/**
 * Runs `work` while holding `lock_path` (created with O_EXCL), so two processes (the gateway and
 * `lich gateway pair`) never interleave a read-modify-write of the same file.
 *
 * Contract: resolves with what `work` resolves; the lock is removed afterwards even when `work`
 * throws; rejects when the lock cannot be had within `wait_ms`.
 */
export async function with_file_lock<T>(
  lock_path: string,
  work: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const wait_ms = options.wait_ms ?? 5_000;
  const stale_ms = options.stale_ms ?? 30_000;
  const deadline = Date.now() + wait_ms;
  await mkdir(dirname(lock_path), { recursive: true, mode: 0o700 });
  for (;;) {
    try {
      const handle = await open(lock_path, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      break;
    } catch (error) {
      if (error_code(error) !== 'EEXIST') throw error;
    }
    const info = await stat(lock_path).catch(() => undefined);
    if (info !== undefined && Date.now() - info.mtimeMs > stale_ms) {
      await unlink(lock_path).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`could not lock ${lock_path} within ${wait_ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 20));
  }
  try {
    return await work();
  } finally {
    await unlink(lock_path).catch(() => undefined);
  }
}

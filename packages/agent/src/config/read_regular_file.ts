import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** Why a file could not be read as text. */
export type ReadRefusal = 'missing' | 'folder' | 'special' | 'too_large' | 'unreadable';

/** A file's text, or why it was not read (with a message that names the file). */
export type RegularFileText =
  | { ok: true; text: string; bytes: number }
  | { ok: false; reason: ReadRefusal; message: string };

/**
 * Reads a file as UTF-8 when it is a regular file of at most `max_bytes` bytes (symbolic links
 * followed). A folder, a FIFO, a socket or a device (`/dev/zero`, `/dev/urandom`) is refused
 * without reading: the file is opened non-blocking, so a FIFO with no writer never hangs, and
 * checked with `fstat` on the opened handle, so what is read is what was checked. Messages name
 * `path`: `<path>: is a folder, not a file`. Never throws.
 */
export async function read_regular_file(
  path: string,
  options: { max_bytes: number; signal?: AbortSignal },
): Promise<RegularFileText> {
  const refuse = (reason: ReadRefusal, text: string): RegularFileText => ({
    ok: false,
    reason,
    message: `${path}: ${text}`,
  });
  let handle: FileHandle;
  try {
    options.signal?.throwIfAborted();
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return refuse('missing', 'no such file');
    if (code === 'EISDIR') return refuse('folder', 'is a folder, not a file');
    if (code === 'EACCES' || code === 'EPERM') return refuse('unreadable', 'permission denied');
    if (code === 'ENXIO') return refuse('special', 'is not a regular file (a socket or a FIFO)');
    return refuse('unreadable', error instanceof Error ? error.message : String(error));
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return refuse('folder', 'is a folder, not a file');
    if (!info.isFile()) {
      const what = info.isFIFO()
        ? 'a FIFO'
        : info.isCharacterDevice() || info.isBlockDevice()
          ? 'a device'
          : info.isSocket()
            ? 'a socket'
            : 'a special file';
      return refuse('special', `is ${what}, not a regular file; only regular files are read`);
    }
    if (info.size > options.max_bytes) {
      return refuse('too_large', `is ${info.size} bytes; the limit is ${options.max_bytes} bytes`);
    }
    // A file that grows while it is read is cut at the limit rather than read without end.
    const buffer = Buffer.alloc(Math.min(info.size, options.max_bytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      options.signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > options.max_bytes) {
      return refuse('too_large', `is over the limit of ${options.max_bytes} bytes`);
    }
    return { ok: true, text: buffer.subarray(0, length).toString('utf8'), bytes: length };
  } catch (error) {
    return refuse('unreadable', error instanceof Error ? error.message : String(error));
  } finally {
    await handle.close().catch(() => undefined);
  }
}

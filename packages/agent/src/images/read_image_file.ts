/**
 * A picture file named by the person (`lich --image shot.png`, a path pasted into the TUI) as an
 * image part. The person chose the file, so it may lie outside the work dir, as a file they
 * attach to a mail may; it must be a picture, and not a huge one.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { type ImagePart, image_info } from '@lich/core';

/** The largest picture file taken as it is (it is scaled to the model's limits when sent). */
export const MAX_IMAGE_FILE_BYTES = 20 * 1024 * 1024;

/**
 * Reads `path` (relative to `cwd`) as a picture.
 *
 * Contract: rejects with an `Error` whose message names the file and says what is wrong (missing,
 * a folder, over `MAX_IMAGE_FILE_BYTES`, not a PNG, JPEG, GIF or WebP picture).
 */
export async function read_image_file(path: string, cwd: string): Promise<ImagePart> {
  const full = resolve(cwd, path);
  const info = await stat(full).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'ENOENT' ? `${path}: no such file` : `${path}: ${error.message}`,
    );
  });
  if (!info.isFile()) throw new Error(`${path}: not a file`);
  if (info.size > MAX_IMAGE_FILE_BYTES) {
    throw new Error(
      `${path}: ${info.size} bytes, over the ${MAX_IMAGE_FILE_BYTES / (1024 * 1024)} MB a picture may have`,
    );
  }
  const bytes = await readFile(full);
  const picture = image_info(bytes);
  if (picture === undefined) throw new Error(`${path}: not a PNG, JPEG, GIF or WebP picture`);
  return {
    type: 'image',
    media_type: picture.media_type,
    data: bytes.toString('base64'),
    name: basename(path),
    width: picture.width,
    height: picture.height,
  };
}

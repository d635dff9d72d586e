import { type ImagePart, image_from_base64 } from '@lich/core';
import { RpcError } from './rpc_error.js';

/** The largest picture `prompt.submit` takes by default: 20 MiB decoded. */
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * The pictures of a `prompt.submit` (`images: [{ media_type, data, name? }]`), each checked:
 * base64 bytes of a PNG, JPEG, GIF or WebP picture, of the media type declared, at most
 * `max_bytes` decoded.
 *
 * Contract: throws `RpcError('invalid_params')` naming the picture (`images[1]`) and what is wrong
 * with it; an absent `images` is no pictures.
 */
export function read_prompt_images(method: string, value: unknown, max_bytes: number): ImagePart[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new RpcError(
      'invalid_params',
      `${method}: images must be a list of { media_type, data }`,
    );
  }
  return value.map((entry: unknown, index) => {
    const where = `${method}: images[${index}]`;
    const image = entry as { media_type?: unknown; data?: unknown; name?: unknown } | null;
    if (
      typeof image !== 'object' ||
      image === null ||
      typeof image.media_type !== 'string' ||
      typeof image.data !== 'string' ||
      (image.name !== undefined && typeof image.name !== 'string')
    ) {
      throw new RpcError(
        'invalid_params',
        `${where} must be { media_type: string, data: string (base64), name?: string }`,
      );
    }
    const taken = image_from_base64(image.data, {
      max_bytes,
      media_type: image.media_type,
      ...(typeof image.name === 'string' ? { name: image.name } : {}),
    });
    if (!taken.ok) throw new RpcError('invalid_params', `${where}: ${taken.error}`);
    return taken.image;
  });
}

/**
 * Taking a picture in from outside (a client's prompt, a chat platform's photo, a webhook's
 * payload): checks the bytes are a picture every vision API takes, that they are what the sender
 * said they are, and that they fit a size cap, and makes the `ImagePart`. One check for every
 * surface, so each refuses the same things with the same words.
 */
import { image_info } from './image_info.js';
import type { ImagePart } from './types.js';

/** The media types a picture may have: the four formats every vision API takes. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** A picture taken in, or why it was not. */
export type ImageIntake = { ok: true; image: ImagePart } | { ok: false; error: string };

/** What `image_from_bytes` and `image_from_base64` check against. */
export interface ImageIntakeOptions {
  /** The largest picture taken, in bytes (decoded). */
  max_bytes: number;
  /**
   * The media type the sender declared (`image/png`; parameters and case are ignored, `image/jpg`
   * reads as `image/jpeg`). When given it must be one of `IMAGE_MEDIA_TYPES` and match the bytes.
   */
  media_type?: string;
  /** A name to show where the picture cannot be drawn. */
  name?: string;
}

/**
 * The media type `declared` names, in its plain form (`image/jpeg`), or `undefined` when it is not
 * one of `IMAGE_MEDIA_TYPES`.
 *
 * Contract: never throws.
 */
export function image_media_type(declared: string): ImagePart['media_type'] | undefined {
  const plain = (declared.split(';')[0] ?? '').trim().toLowerCase();
  const type = plain === 'image/jpg' ? 'image/jpeg' : plain;
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(type) ? type : undefined;
}

/** `bytes` as a size people read: `512 B`, `1.5 MB`. */
export function byte_size_text(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${round_one(bytes / 1024)} KB`;
  return `${round_one(bytes / (1024 * 1024))} MB`;
}

function round_one(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

/**
 * The picture in `bytes`, as an `ImagePart` with `data` (base64), its media type read from the
 * bytes, and its size.
 *
 * Contract: never throws; refuses (with a sentence fit to show the sender) bytes over
 * `max_bytes`, bytes that are not a PNG, JPEG, GIF or WebP picture, a declared media type outside
 * `IMAGE_MEDIA_TYPES`, and one that differs from what the bytes are.
 */
export function image_from_bytes(bytes: Uint8Array, options: ImageIntakeOptions): ImageIntake {
  if (bytes.length > options.max_bytes) {
    return {
      ok: false,
      error: `the picture is ${byte_size_text(bytes.length)}, over the limit of ${byte_size_text(options.max_bytes)}`,
    };
  }
  let declared: string | undefined;
  if (options.media_type !== undefined) {
    declared = image_media_type(options.media_type);
    if (declared === undefined) {
      return {
        ok: false,
        error: `${JSON.stringify(options.media_type)} is not a picture type taken (${IMAGE_MEDIA_TYPES.join(', ')})`,
      };
    }
  }
  const info = image_info(bytes);
  if (info === undefined) {
    return { ok: false, error: 'the bytes are not a PNG, JPEG, GIF or WebP picture' };
  }
  if (declared !== undefined && declared !== info.media_type) {
    return {
      ok: false,
      error: `the picture was sent as ${declared} but its bytes are ${info.media_type}`,
    };
  }
  return {
    ok: true,
    image: {
      type: 'image',
      media_type: info.media_type,
      data: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
      ...(options.name === undefined || options.name === '' ? {} : { name: options.name }),
      width: info.width,
      height: info.height,
    },
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The picture in `data` (base64, standard alphabet, padding optional, no data-URL prefix), checked
 * as `image_from_bytes` checks bytes. The size is judged from the length of `data` before
 * anything is decoded, so an oversize payload costs no memory beyond the string itself.
 *
 * Contract: never throws; refuses what `image_from_bytes` refuses and text that is not base64.
 */
export function image_from_base64(data: string, options: ImageIntakeOptions): ImageIntake {
  const decoded_bytes = Math.floor((data.replace(/=+$/, '').length * 3) / 4);
  if (decoded_bytes > options.max_bytes) {
    return {
      ok: false,
      error: `the picture is ${byte_size_text(decoded_bytes)}, over the limit of ${byte_size_text(options.max_bytes)}`,
    };
  }
  if (data === '' || data.length % 4 === 1 || !BASE64.test(data)) {
    return { ok: false, error: 'the picture data is not base64' };
  }
  return image_from_bytes(Buffer.from(data, 'base64'), options);
}

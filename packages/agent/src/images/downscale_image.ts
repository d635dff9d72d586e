/**
 * Scales a picture down to a provider's limits with `sharp`, which is loaded the first time a
 * picture needs it: a text-only run never loads it, and a run whose pictures already fit never
 * does either.
 */
import type { ImageInfo } from '@lich/core';
import type { ImageLimits } from './image_limits.js';

/** A picture after `downscale_image`. */
export interface ScaledImage {
  bytes: Buffer;
  media_type: ImageInfo['media_type'];
  width: number;
  height: number;
}

type SharpModule = typeof import('sharp')['default'];
type Sharp = ReturnType<SharpModule>;

let loading: Promise<SharpModule | undefined> | undefined;

/**
 * `sharp`, or `undefined` where it is not installed (an optional dependency: npm leaves it out on
 * a platform it has no prebuilt binary for). Loaded once.
 */
export function load_sharp(): Promise<SharpModule | undefined> {
  loading ??= import('sharp').then(
    (module) => module.default,
    () => undefined,
  );
  return loading;
}

/** Why a picture over the limits could not be scaled down. */
export class ImageTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageTooLargeError';
  }
}

/**
 * `bytes` (a picture described by `info`) scaled to fit `limits`: the long side at most
 * `max_side`, the bytes at most `max_bytes`. A PNG stays a PNG (screenshots keep their text
 * sharp) unless only JPEG gets it under the byte limit; a GIF becomes a PNG of its first frame.
 *
 * Contract: rejects with `ImageTooLargeError` when `sharp` is not installed (saying how to
 * install it) or the picture cannot be made to fit; never returns a picture over the limits.
 */
export async function downscale_image(
  bytes: Buffer,
  info: ImageInfo,
  limits: ImageLimits,
  name: string,
): Promise<ScaledImage> {
  const sharp = await load_sharp();
  if (sharp === undefined) {
    throw new ImageTooLargeError(
      `${name} is ${info.width}×${info.height} px and ${megabytes(bytes.length)}, over the model's limit of ${limits.max_side} px and ${megabytes(limits.max_bytes)}, and sharp (which scales pictures down) is not installed: run \`npm i -g sharp\` next to Lich, or send a smaller picture`,
    );
  }
  let side = Math.min(limits.max_side, Math.max(info.width, info.height));
  const keep_png = info.media_type === 'image/png' || info.media_type === 'image/gif';
  const attempts: { format: 'png' | 'webp' | 'jpeg'; quality: number }[] = keep_png
    ? [{ format: 'png', quality: 100 }]
    : [];
  const lossy = info.media_type === 'image/webp' ? 'webp' : 'jpeg';
  attempts.push(
    { format: lossy, quality: 85 },
    { format: lossy, quality: 70 },
    { format: lossy, quality: 55 },
  );
  for (let round = 0; round < 4; round++) {
    for (const attempt of attempts) {
      // a square box: the long side (after turning the picture upright) becomes `side`
      const image: Sharp = sharp(bytes, { animated: false })
        .rotate()
        .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true });
      const out =
        attempt.format === 'png'
          ? await image.png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true })
          : attempt.format === 'webp'
            ? await image.webp({ quality: attempt.quality }).toBuffer({ resolveWithObject: true })
            : await image
                .flatten({ background: '#ffffff' })
                .jpeg({ quality: attempt.quality, mozjpeg: true })
                .toBuffer({ resolveWithObject: true });
      if (out.data.length <= limits.max_bytes) {
        return {
          bytes: out.data,
          media_type: `image/${attempt.format}` as ScaledImage['media_type'],
          width: out.info.width,
          height: out.info.height,
        };
      }
    }
    side = Math.max(1, Math.floor(side * 0.7));
  }
  throw new ImageTooLargeError(
    `${name} could not be brought under ${megabytes(limits.max_bytes)} for this model`,
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

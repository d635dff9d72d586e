import { type ImagePart, image_from_base64 } from '@lich/core';
import { acp_errors, type ContentBlock } from './acp_sdk.js';

/** The largest picture a `session/prompt` takes by default: 20 MiB decoded. */
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * The pictures of a `session/prompt`: its `image` blocks (base64 `data` and `mimeType`), in order,
 * each checked: a PNG, JPEG, GIF or WebP picture of the type it claims, at most `max_bytes`
 * decoded. A block's `uri` is a label only: nothing is ever fetched.
 *
 * Contract: throws `acp_errors.invalid_params` naming the block (its index in the prompt) and
 * what is wrong with it; no image block is no pictures.
 */
export function prompt_images(blocks: readonly ContentBlock[], max_bytes: number): ImagePart[] {
  const images: ImagePart[] = [];
  for (const [index, block] of blocks.entries()) {
    if (block.type !== 'image') continue;
    const name = block.uri === undefined || block.uri === null ? undefined : file_name(block.uri);
    const taken = image_from_base64(typeof block.data === 'string' ? block.data : '', {
      max_bytes,
      media_type: typeof block.mimeType === 'string' ? block.mimeType : '',
      ...(name === undefined ? {} : { name }),
    });
    if (!taken.ok) throw acp_errors.invalid_params(`prompt[${index}] (image): ${taken.error}`);
    images.push(taken.image);
  }
  return images;
}

/** The last segment of a URI (`shot.png` of `file:///w/shot.png`), shown where a picture is not. */
function file_name(uri: string): string | undefined {
  const last = uri.split(/[\\/]/).pop();
  return last === undefined || last === '' ? undefined : last;
}

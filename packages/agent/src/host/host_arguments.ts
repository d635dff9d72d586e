import type { ImagePart } from '@lich/core';
import { SessionHostError } from './session_host_error.js';
import type { ApprovalMode } from './session_host_types.js';

const APPROVAL_MODES: readonly ApprovalMode[] = ['default', 'auto_edit', 'plan', 'yolo'];

/** `value` when it is a string with something in it; else an `invalid_argument` error. */
export function text_argument(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new SessionHostError('invalid_argument', `${name} must be a non-empty string`);
  }
  return value;
}

/** `mode` when it is an approval mode; else an `invalid_argument` error naming it. */
export function approval_mode_argument(mode: unknown): ApprovalMode {
  if (!APPROVAL_MODES.includes(mode as ApprovalMode)) {
    throw new SessionHostError('invalid_argument', `unknown approval mode '${String(mode)}'`);
  }
  return mode as ApprovalMode;
}

/**
 * `value` when it is absent (no pictures) or a list of image parts that each hold their bytes
 * (`data`) or a stored blob's hash (`blob`); else an `invalid_argument` error. The surface that
 * took a picture in has checked its bytes (`image_from_base64`); this checks only the shape.
 */
export function images_argument(value: unknown): readonly ImagePart[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new SessionHostError('invalid_argument', 'images must be a list of image parts');
  }
  for (const [index, part] of value.entries()) {
    const image = part as Partial<ImagePart> | null;
    const ok =
      typeof image === 'object' &&
      image !== null &&
      image.type === 'image' &&
      typeof image.media_type === 'string' &&
      (typeof image.data === 'string' || typeof image.blob === 'string');
    if (!ok) {
      throw new SessionHostError(
        'invalid_argument',
        `images[${index}] must be { type: 'image', media_type, data }`,
      );
    }
  }
  return value as ImagePart[];
}

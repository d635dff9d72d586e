/**
 * What an adapter makes of a message's attachments once the bus let the message in: the pictures
 * it took (downloaded from the platform's own file host under a size cap, and checked), and the
 * attachments it did not take, each with a reason the sender is told.
 */
import type { ImagePart } from '@lich/core';
import { GatewayConfigError } from './gateway_config.js';
import type { Attachment } from './inbound_message.js';

/** The largest picture a gateway downloads by default: 10 MiB. */
export const DEFAULT_MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** Why an attachment that is not a picture was left out. */
export const ONLY_TEXT_AND_PICTURES = 'I understand only text and pictures';

/** An attachment not taken: what it was (`photo.jpg`, `a voice message`) and why. */
export interface RefusedAttachment {
  what: string;
  why: string;
}

/** The pictures taken from a message's attachments, and the attachments refused. */
export interface AttachmentIntake {
  /** Each with its bytes (`data`, base64), media type and size; in the attachments' order. */
  images: ImagePart[];
  refused: RefusedAttachment[];
  /** Attachments left as they are: they reach the model as `[<kind>: <url>]` lines. */
  kept?: Attachment[];
}

/** How an attachment reads in a refusal: its name, else `a <kind>` (`a voice message`). */
export function attachment_label(attachment: Attachment): string {
  if (attachment.name !== undefined && attachment.name !== '') return attachment.name;
  const kind = attachment.kind.replace(/_/g, ' ');
  return /^[aeiou]/i.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** The refusal of an attachment that is not a picture (a voice message, a video, a sticker). */
export function not_a_picture(attachment: Attachment): RefusedAttachment {
  return { what: attachment_label(attachment), why: ONLY_TEXT_AND_PICTURES };
}

/**
 * The `max_image_bytes` setting of a platform section: absent (the default cap), or a whole number
 * of bytes of at least 1024 (a string of digits, from a flag, is read as one).
 *
 * Contract: throws `GatewayConfigError` for anything else.
 */
export function max_image_bytes_setting(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1024) {
    throw new GatewayConfigError('max_image_bytes must be a whole number of bytes, at least 1024');
  }
  return number;
}

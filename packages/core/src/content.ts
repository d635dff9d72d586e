/**
 * Reading a message's content, whichever form it has: plain text, or a list of parts (text and
 * pictures). Every package that needs the text of a message, or its pictures, asks here.
 */
import type { ContentPart, ImagePart, Message, MessageContent } from './types.js';

/**
 * How a picture reads where it cannot be shown (a summary, a transcript, a search index):
 * `[image: shot.png]`, or `[image]` when it has no name.
 */
export function image_placeholder(part: ImagePart): string {
  return part.name !== undefined && part.name !== '' ? `[image: ${part.name}]` : '[image]';
}

/**
 * The text of `content`: the string itself, or the text parts joined with blank lines, each
 * picture standing as its placeholder (see `image_placeholder`).
 *
 * Contract: never throws; a part of an unknown type counts as nothing.
 */
export function content_text(content: MessageContent): string {
  if (typeof content === 'string') return content;
  const pieces: string[] = [];
  for (const part of content) {
    if (part.type === 'text') pieces.push(part.text);
    else if (part.type === 'image') pieces.push(image_placeholder(part));
  }
  return pieces.join('\n\n');
}

/** The pictures of `content`, in order (none for plain text). */
export function content_images(content: MessageContent): ImagePart[] {
  if (typeof content === 'string') return [];
  return content.filter((part): part is ImagePart => part.type === 'image');
}

/** True when `content` holds at least one picture. */
export function has_images(content: MessageContent): boolean {
  return typeof content !== 'string' && content.some((part) => part.type === 'image');
}

/** True when a user or tool message of `messages` holds a picture. */
export function messages_have_images(messages: readonly Message[]): boolean {
  for (const message of messages) {
    if ((message.role === 'user' || message.role === 'tool') && has_images(message.content)) {
      return true;
    }
  }
  return false;
}

/**
 * Content made of `text` and `images`: the plain string when there are no pictures (so a
 * text-only message keeps its simplest form), else the text part (if any) then the pictures.
 */
export function with_images(text: string, images: readonly ImagePart[]): MessageContent {
  if (images.length === 0) return text;
  const parts: ContentPart[] = text === '' ? [] : [{ type: 'text', text }];
  return [...parts, ...images];
}

/**
 * The tokens providers bill for one picture. Anthropic bills width × height / 750 after scaling
 * the long side to at most 1568 px; OpenAI's high detail bills 85 + 170 per 512-px tile of the
 * picture scaled to fit 2048 and then 768 on its short side. The larger of the two, so a budget
 * decision never under-counts; an image of unknown size counts as a full 1568 × 1568 one.
 */
export function image_tokens(part: ImagePart): number {
  const width = part.width ?? 1568;
  const height = part.height ?? 1568;
  return Math.max(anthropic_image_tokens(width, height), openai_image_tokens(width, height));
}

function anthropic_image_tokens(width: number, height: number): number {
  const scale = Math.min(1, 1568 / Math.max(width, height));
  return Math.ceil((width * scale * (height * scale)) / 750);
}

function openai_image_tokens(width: number, height: number): number {
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/**
 * An MCP `tools/call` result as a tool's output: text joined, binary content described (never
 * dumped), `isError` as `ok: false`, and the whole clamped without building a giant string.
 */

import { type ImagePart, image_info } from '@lich/core';

/** What a call returns to the executor (the `ToolOutput` object form). */
export interface McpCallOutput {
  ok: boolean;
  output: string;
  error?: string;
  /** The result's pictures, passed on as image parts for a model that can see. */
  images?: ImagePart[];
}

/** The largest picture of a result passed on as a picture (larger ones are only described). */
export const MAX_RESULT_IMAGE_BYTES = 20 * 1024 * 1024;

/** The default bound of a call's output, in characters; the executor may clamp further. */
export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

type Block = Record<string, unknown>;

/**
 * Maps a `tools/call` result.
 *
 * - `text` blocks are joined by newlines;
 * - `image` / `audio` become `[image: image/png, 1.2 KB]`; a PNG, JPEG, GIF or WebP picture
 *   (up to `MAX_RESULT_IMAGE_BYTES`, its bytes what its header says) also comes back in `images`;
 * - `resource_link` becomes `[resource link: name <uri> (mime, size)]`;
 * - an embedded `resource` is described by uri, mime type and size, followed by its text when it
 *   has text;
 * - when no block is text, `structuredContent` (if any) is added as JSON;
 * - `isError: true` gives `ok: false` with the same text as `error`.
 * - Longer than `max_chars`: the head and the tail are kept and the cut is marked; the parts in
 *   between are never concatenated.
 *
 * Contract: never throws, whatever shape `result` has.
 */
export function map_call_result(
  result: unknown,
  max_chars: number = DEFAULT_MAX_OUTPUT_CHARS,
): McpCallOutput {
  const record = is_record(result) ? result : {};
  const content = Array.isArray(record.content) ? record.content : [];
  const parts: string[] = [];
  const images: ImagePart[] = [];
  let saw_text = false;
  for (const block of content) {
    if (!is_record(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') saw_text = true;
    parts.push(describe_block(block));
    const picture = block.type === 'image' ? image_part(block) : undefined;
    if (picture !== undefined) images.push(picture);
  }
  if (!saw_text && record.structuredContent !== undefined) {
    parts.push(safe_json(record.structuredContent));
  }
  const output = clamp_parts(parts, max_chars);
  if (record.isError === true) {
    const message = output === '' ? 'the tool reported an error without a message' : output;
    return { ok: false, output: message, error: message };
  }
  return images.length === 0 ? { ok: true, output } : { ok: true, output, images };
}

/** An `image` block as an image part, when it is a picture a model can take. */
function image_part(block: Block): ImagePart | undefined {
  if (typeof block.data !== 'string' || base64_size(block.data) > MAX_RESULT_IMAGE_BYTES) {
    return undefined;
  }
  const info = image_info(Buffer.from(block.data, 'base64'));
  if (info === undefined) return undefined;
  return {
    type: 'image',
    media_type: info.media_type,
    data: block.data,
    width: info.width,
    height: info.height,
  };
}

function describe_block(block: Block): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${mime(block.mimeType)}, ${format_size(base64_size(block.data))}]`;
    case 'resource_link': {
      const name = typeof block.name === 'string' ? `${block.name} ` : '';
      const size = typeof block.size === 'number' ? `, ${format_size(block.size)}` : '';
      return `[resource link: ${name}<${String(block.uri)}> (${mime(block.mimeType)}${size})]`;
    }
    case 'resource':
      return describe_resource(is_record(block.resource) ? block.resource : {});
    default:
      return `[${typeof block.type === 'string' ? block.type : 'unknown'} content]`;
  }
}

function describe_resource(resource: Block): string {
  const uri = String(resource.uri ?? '?');
  if (typeof resource.text === 'string') {
    const size = Buffer.byteLength(resource.text, 'utf8');
    return `[resource: <${uri}> (${mime(resource.mimeType)}, ${format_size(size)})]\n${resource.text}`;
  }
  return `[resource: <${uri}> (${mime(resource.mimeType)}, ${format_size(base64_size(resource.blob))})]`;
}

function mime(value: unknown): string {
  return typeof value === 'string' && value !== '' ? value : 'unknown type';
}

/** Decoded size of base64 text, computed without decoding it. */
function base64_size(data: unknown): number {
  if (typeof data !== 'string') return 0;
  let padding = 0;
  if (data.endsWith('==')) padding = 2;
  else if (data.endsWith('=')) padding = 1;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `532 B`, `1.2 KB`, `3.4 MB`. */
export function format_size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function safe_json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * `parts` joined by newlines, or when that would exceed `max_chars`, its first and last parts
 * (four fifths head, one fifth tail) around a line saying how much was cut.
 */
export function clamp_parts(parts: readonly string[], max_chars: number): string {
  const total = parts.reduce((sum, part) => sum + part.length, 0) + Math.max(0, parts.length - 1);
  if (total <= max_chars) return parts.join('\n');
  const head_budget = Math.floor(max_chars * 0.8);
  const tail_budget = max_chars - head_budget;
  const head = take(parts, head_budget, 'head');
  const tail = take(parts, tail_budget, 'tail');
  const cut = total - head.length - tail.length;
  return `${head}\n[… ${cut} characters cut: the MCP result had ${total} …]\n${tail}`;
}

function take(parts: readonly string[], budget: number, side: 'head' | 'tail'): string {
  const taken: string[] = [];
  let room = budget;
  const ordered = side === 'head' ? parts : [...parts].reverse();
  for (const part of ordered) {
    if (room <= 0) break;
    const piece =
      part.length <= room ? part : side === 'head' ? part.slice(0, room) : part.slice(-room);
    taken.push(piece);
    room -= piece.length + 1;
  }
  return (side === 'head' ? taken : taken.reverse()).join('\n');
}

function is_record(value: unknown): value is Block {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Pictures in session files are kept by reference: the bytes go once into a content-addressed
 * file (`<blob_dir>/<sha256>`), and the record holds the hash. A transcript stays small and
 * greppable, and a picture sent in ten turns is stored once.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImagePart, Message } from '@lich/core';

/** The bytes a record refers to, by their sha256 (hex). */
export type BlobBytes = Map<string, Buffer>;

const HASH = /^[0-9a-f]{64}$/;

function is_image_with_data(value: unknown): value is ImagePart & { data: string } {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as Partial<ImagePart>;
  return part.type === 'image' && typeof part.data === 'string';
}

/**
 * `value` (a record, a message) with each picture's bytes moved out: every `{ type: 'image',
 * data }` part becomes the same part with `blob` (the sha256 of its bytes) and no `data`. Returns
 * the copy and the bytes to store; `value` itself is not changed, and comes back as it is (same
 * object, no bytes) when it holds no picture.
 *
 * Contract: never throws on JSON-like values; a picture whose `data` is not valid base64 is
 * stored as what Node decodes of it.
 */
export function externalize_images<T>(value: T): { value: T; blobs: BlobBytes } {
  const blobs: BlobBytes = new Map();
  const walk = (current: unknown): unknown => {
    if (Array.isArray(current)) {
      let changed = false;
      const items = current.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? items : current;
    }
    if (typeof current !== 'object' || current === null) return current;
    if (is_image_with_data(current)) {
      const bytes = Buffer.from(current.data, 'base64');
      const blob = createHash('sha256').update(bytes).digest('hex');
      blobs.set(blob, bytes);
      const { data: _data, ...rest } = current;
      return { ...rest, blob };
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(current)) {
      const next = walk(item);
      if (next === item) continue;
      copy ??= { ...(current as Record<string, unknown>) };
      copy[key] = next;
    }
    return copy ?? current;
  };
  return { value: walk(value) as T, blobs };
}

/**
 * Stores `blobs` in `dir` (created when missing), each as `<sha256>`. A blob already there is
 * left as it is; a new one is written to a temporary file and renamed, so a reader never sees
 * half a picture.
 *
 * Contract: rejects with the file system's error when a blob cannot be written.
 */
export async function write_blobs(dir: string, blobs: BlobBytes): Promise<void> {
  if (blobs.size === 0) return;
  await mkdir(dir, { recursive: true });
  for (const [hash, bytes] of blobs) {
    const path = join(dir, hash);
    const known = await stat(path).catch(() => undefined);
    if (known !== undefined && known.size === bytes.length) continue;
    const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path).catch(async (error: unknown) => {
      await unlink(temporary).catch(() => undefined);
      throw error;
    });
  }
}

/**
 * Reads the bytes of blob `hash` from `dir` and checks them against the hash. `undefined` when
 * the hash is malformed, the file is missing or its bytes do not match. Never throws.
 */
export async function read_blob(dir: string, hash: string): Promise<Buffer | undefined> {
  if (!HASH.test(hash)) return undefined;
  try {
    const bytes = await readFile(join(dir, hash));
    return createHash('sha256').update(bytes).digest('hex') === hash ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `messages` with each stored picture's bytes read back: a part with `blob` and no `data` gets
 * `data` (base64) from `dir`, and keeps `blob`. A picture whose blob is missing or damaged stays
 * without bytes, so it reaches the model as its name. Messages without pictures come back as the
 * same objects. Never throws.
 */
export async function resolve_images(messages: Message[], dir: string): Promise<Message[]> {
  const cache = new Map<string, Promise<Buffer | undefined>>();
  const load = (hash: string) => {
    let bytes = cache.get(hash);
    if (bytes === undefined) {
      bytes = read_blob(dir, hash);
      cache.set(hash, bytes);
    }
    return bytes;
  };
  const result: Message[] = [];
  for (const message of messages) {
    if (
      (message.role !== 'user' && message.role !== 'tool') ||
      typeof message.content === 'string'
    ) {
      result.push(message);
      continue;
    }
    if (!message.content.some((part) => part.type === 'image' && part.data === undefined)) {
      result.push(message);
      continue;
    }
    const content = [];
    for (const part of message.content) {
      if (part.type !== 'image' || part.data !== undefined || part.blob === undefined) {
        content.push(part);
        continue;
      }
      const bytes = await load(part.blob);
      content.push(bytes === undefined ? part : { ...part, data: bytes.toString('base64') });
    }
    result.push({ ...message, content } as Message);
  }
  return result;
}

/**
 * A JSON request body as UTF-8 bytes, in one or more chunks sent one after the other: what
 * `post_json` hands a transport. The chunks are never changed once made (a transport may still be
 * writing them when the next body is encoded).
 */
export class JsonBytes {
  /** Total bytes: the `content-length`. */
  readonly length: number;

  constructor(readonly chunks: readonly Uint8Array[]) {
    let length = 0;
    for (const chunk of chunks) length += chunk.byteLength;
    this.length = length;
  }

  /** `value` as `JSON.stringify` writes it, in one chunk. Throws as `JSON.stringify` does. */
  static of(value: unknown): JsonBytes {
    return new JsonBytes([Buffer.from(JSON.stringify(value) ?? 'null')]);
  }

  /** The whole body in one buffer (for a `fetch`, which wants one). */
  joined(): Uint8Array {
    const [only] = this.chunks;
    return this.chunks.length === 1 && only !== undefined
      ? only
      : Buffer.concat(this.chunks, this.length);
  }
}

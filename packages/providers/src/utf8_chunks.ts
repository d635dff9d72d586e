/** One decoder for every chunk that ends on a whole character (nearly all of them). */
const WHOLE = new TextDecoder('utf-8', { ignoreBOM: true });
const BOM = 0xfeff;
const STREAM = { stream: true } as const;

/**
 * Whether `bytes` ends inside a UTF-8 character (its last lead byte wants more bytes than follow
 * it). Stray or invalid bytes count as whole: any decoder replaces them alike.
 */
function ends_inside_character(bytes: Uint8Array): boolean {
  const length = bytes.length;
  let continuation = 0;
  while (continuation < 3 && continuation < length) {
    const byte = bytes[length - 1 - continuation] as number;
    if ((byte & 0xc0) !== 0x80) break;
    continuation += 1;
  }
  if (continuation === length) return length > 0; // only continuation bytes: a lead may precede
  const lead = bytes[length - 1 - continuation] as number;
  const wanted =
    lead < 0x80
      ? 0
      : (lead & 0xe0) === 0xc0
        ? 1
        : (lead & 0xf0) === 0xe0
          ? 2
          : (lead & 0xf8) === 0xf0
            ? 3
            : 0;
  return continuation < wanted;
}

/**
 * Decodes a byte stream as UTF-8, chunk by chunk, as a `TextDecoder` with `{ stream: true }`
 * does, but makes no decoder of its own until a chunk ends inside a character: a streaming
 * `TextDecoder` takes Node's slower converter path and a native converter per instance, which a
 * model call (one parser each) would pay every time.
 *
 * Contract: the concatenation of `decode` results and `end()` equals the whole input decoded at
 * once (invalid bytes become U+FFFD, a byte order mark at the very start is dropped, one later
 * on is kept); a character split across chunks comes out whole.
 */
export class Utf8Chunks {
  #streaming: InstanceType<typeof TextDecoder> | undefined;
  /** Whether text came out yet: a byte order mark is dropped at the very start only. */
  #started = false;

  /** The text of `bytes`, holding back a character whose end has not arrived. */
  decode(bytes: Uint8Array): string {
    let text: string;
    if (this.#streaming === undefined && !ends_inside_character(bytes)) text = WHOLE.decode(bytes);
    else {
      this.#streaming ??= new TextDecoder('utf-8', { ignoreBOM: true });
      text = this.#streaming.decode(bytes, STREAM);
    }
    return this.#started ? text : this.#start(text);
  }

  /** What was held back (U+FFFD for a character cut off at the end); `''` when nothing was. */
  end(): string {
    if (this.#streaming === undefined) return '';
    const text = this.#streaming.decode();
    return this.#started ? text : this.#start(text);
  }

  #start(text: string): string {
    if (text === '') return text;
    this.#started = true;
    return text.charCodeAt(0) === BOM ? text.slice(1) : text;
  }
}

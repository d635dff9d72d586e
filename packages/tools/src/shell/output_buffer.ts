/**
 * Collects a child's output in bounded memory: the first `head_bytes` and the last `tail_bytes`
 * are kept, everything between is counted and dropped. A command that prints gigabytes costs a
 * few kilobytes of memory.
 *
 * Contract: never throws on input; `text()` may be called any number of times and marks the cut
 * with a line naming how many bytes were left out.
 */
export class HeadTailBuffer {
  readonly #head_limit: number;
  readonly #tail_limit: number;
  readonly #head: Buffer[] = [];
  #head_size = 0;
  #tail: Buffer[] = [];
  #tail_size = 0;
  #total = 0;

  constructor(options: { head_bytes: number; tail_bytes: number }) {
    if (options.head_bytes < 0 || options.tail_bytes < 0) {
      throw new RangeError('HeadTailBuffer: head_bytes and tail_bytes must not be negative');
    }
    this.#head_limit = options.head_bytes;
    this.#tail_limit = options.tail_bytes;
  }

  /** Appends one chunk of output. */
  push(chunk: Buffer | string): void {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#total += data.length;
    const head_room = this.#head_limit - this.#head_size;
    if (head_room > 0) {
      const taken = data.subarray(0, head_room);
      this.#head.push(taken);
      this.#head_size += taken.length;
      data = data.subarray(taken.length);
    }
    if (data.length === 0 || this.#tail_limit === 0) return;
    this.#tail.push(data);
    this.#tail_size += data.length;
    // drop whole chunks from the front while the rest still covers the tail limit
    while (this.#tail.length > 1 && this.#tail_size - this.#tail[0]!.length >= this.#tail_limit) {
      this.#tail_size -= this.#tail.shift()!.length;
    }
  }

  /** Bytes seen so far, kept or not. */
  get total_bytes(): number {
    return this.#total;
  }

  /** True when some bytes between head and tail were dropped. */
  get truncated(): boolean {
    return this.#total > this.#head_limit + this.#tail_limit;
  }

  /** The kept output as text (UTF-8, invalid sequences replaced), the cut marked. */
  text(): string {
    let tail = Buffer.concat(this.#tail);
    if (tail.length > this.#tail_limit) tail = tail.subarray(tail.length - this.#tail_limit);
    if (!this.truncated) return Buffer.concat([...this.#head, tail]).toString('utf8');
    const head = without_broken_end(Buffer.concat(this.#head));
    const start = broken_start_length(tail);
    const dropped = this.#total - head.length - tail.length + start;
    return `${head.toString('utf8')}\n[… ${dropped} bytes of output cut …]\n${tail.subarray(start).toString('utf8')}`;
  }
}

/** Continuation bytes at the start of a cut: the rest of a character whose start was dropped. */
function broken_start_length(bytes: Buffer): number {
  let start = 0;
  while (start < bytes.length && start < 3 && (bytes[start]! & 0xc0) === 0x80) start++;
  return start;
}

/** `bytes` without a character cut off at its end. */
function without_broken_end(bytes: Buffer): Buffer {
  // find the lead byte of the last character and check it is complete
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return size > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

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
    const head = Buffer.concat(this.#head).toString('utf8');
    let tail_bytes = Buffer.concat(this.#tail);
    if (tail_bytes.length > this.#tail_limit) {
      tail_bytes = tail_bytes.subarray(tail_bytes.length - this.#tail_limit);
    }
    if (!this.truncated) return head + tail_bytes.toString('utf8');
    // skip UTF-8 continuation bytes so the tail starts on a character
    let start = 0;
    while (start < tail_bytes.length && start < 3 && (tail_bytes[start]! & 0xc0) === 0x80) start++;
    const dropped = this.#total - this.#head_size - tail_bytes.length + start;
    return `${head}\n[… ${dropped} bytes of output cut …]\n${tail_bytes.subarray(start).toString('utf8')}`;
  }
}

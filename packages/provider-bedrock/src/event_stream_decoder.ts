import { type ChunkDecoder, StreamParseError } from '@lich/providers';

/** One message of an AWS event stream: its string headers and its payload as text. */
export interface EventStreamMessage {
  /** `:message-type` (`event`, `exception`), `:event-type`, `:exception-type`, `:content-type`… */
  headers: Record<string, string>;
  /** The payload (JSON for Bedrock), decoded as UTF-8. */
  payload: string;
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 (IEEE), as the event stream's prelude and message checksums are. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = -1;
  for (let index = start; index < end; index++) {
    crc = (CRC_TABLE[(crc ^ (bytes[index] as number)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}

/** Bytes a header value of each type takes after its type byte (`-1`: a 2-byte length first). */
const VALUE_SIZES: Record<number, number> = {
  0: 0,
  1: 0,
  2: 1,
  3: 2,
  4: 4,
  5: 8,
  6: -1,
  7: -1,
  8: 8,
  9: 16,
};
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const TEXT = new TextDecoder();

/**
 * A push decoder of the `application/vnd.amazon.eventstream` framing (Bedrock's ConverseStream):
 * each message is a 12-byte prelude (total length, headers length, CRC-32 of the eight bytes
 * before), the headers, the payload and a CRC-32 of everything before it.
 *
 * Contract: `push` returns the messages the bytes completed, in order, however the bytes were
 * split; it throws a `StreamParseError` for a checksum that does not match, a length that cannot
 * be, or a header it cannot read; `end` throws one when a message was cut off. String headers are
 * kept; headers of other types are skipped.
 */
export class EventStreamDecoder implements ChunkDecoder<EventStreamMessage> {
  #buffer: Uint8Array = new Uint8Array(0);
  #count = 0;

  push(bytes: Uint8Array): EventStreamMessage[] {
    const buffer = this.#buffer.length === 0 ? bytes : concat(this.#buffer, bytes);
    const messages: EventStreamMessage[] = [];
    let offset = 0;
    while (buffer.length - offset >= 12) {
      const view = new DataView(buffer.buffer, buffer.byteOffset + offset);
      const total = view.getUint32(0);
      const headers_length = view.getUint32(4);
      if (total < 16 || total > MAX_MESSAGE_BYTES || headers_length > total - 16) {
        throw this.#error(`a message of ${total} bytes cannot be`);
      }
      if (crc32(buffer, offset, offset + 8) !== view.getUint32(8)) {
        throw this.#error('the prelude checksum does not match');
      }
      if (buffer.length - offset < total) break;
      if (crc32(buffer, offset, offset + total - 4) !== view.getUint32(total - 4)) {
        throw this.#error('the message checksum does not match');
      }
      const headers = this.#headers(buffer.subarray(offset + 12, offset + 12 + headers_length));
      const payload = TEXT.decode(
        buffer.subarray(offset + 12 + headers_length, offset + total - 4),
      );
      messages.push({ headers, payload });
      this.#count += 1;
      offset += total;
    }
    this.#buffer = buffer.slice(offset);
    return messages;
  }

  end(): EventStreamMessage[] {
    if (this.#buffer.length > 0) throw this.#error('the stream ended inside a message');
    return [];
  }

  #headers(bytes: Uint8Array): Record<string, string> {
    const headers: Record<string, string> = {};
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let at = 0;
    while (at < bytes.length) {
      const name_length = bytes[at] as number;
      const name = TEXT.decode(bytes.subarray(at + 1, at + 1 + name_length));
      at += 1 + name_length;
      const type = bytes[at] as number;
      at += 1;
      const size = VALUE_SIZES[type];
      if (size === undefined || at > bytes.length)
        throw this.#error(`header ${name} has type ${type}`);
      if (size >= 0) {
        at += size;
        continue;
      }
      const length = view.getUint16(at);
      const value = bytes.subarray(at + 2, at + 2 + length);
      if (type === 7) headers[name] = TEXT.decode(value);
      at += 2 + length;
    }
    return headers;
  }

  #error(text: string): StreamParseError {
    return new StreamParseError(`not an event stream: ${text}`, this.#count + 1, '');
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

import { JsonBytes } from './json_bytes.js';

/** A run of array items already encoded, and their bytes. */
interface Chain {
  /** The items encoded, in order (compared by identity). */
  items: unknown[];
  /** `ends[i]`: the byte length of the items up to and including `items[i]`. */
  ends: number[];
  /** The encoded items, `,`-separated; bytes below `length` are never written again. */
  bytes: Buffer;
  length: number;
  /** When it was last used, to evict the least recently used. */
  used: number;
}

/** The body with its array left out: the bytes before the array's items and after them. */
interface Frame {
  keys: string[];
  values: unknown[];
  head: Buffer;
  tail: Buffer;
}

/** Stands for the array while the rest of the body is serialised; found again in the text. */
const MARK = `\u0000lich:items:${Math.random().toString(36).slice(2)}\u0000`;
const MARK_JSON = JSON.stringify(MARK);
const COMMA = 0x2c;
const MIN_CAPACITY = 16 * 1024;

/**
 * Encodes JSON request bodies whose one array field (`messages`) grows from call to call, as a
 * chat history does, so that each call serialises only the items that are new: the bytes of the
 * items an earlier call encoded are reused. Items are matched by identity, so this pays only when
 * the caller hands the very same objects again for the items it sent before (a wire mapping that
 * caches its objects, as `to_openai_messages` does); an item changed in place after it was sent is
 * not seen. The rest of the body is serialised again unless each of its top-level values is the
 * one the previous call had. A few histories are kept at once (the least recently used is
 * dropped), for a provider shared by several sessions.
 *
 * Contract: `encode(body)` gives the bytes of `JSON.stringify(body)` with the same keys in the same
 * order (a body it cannot split, without the array or with a `toJSON`, is serialised whole);
 * throws what `JSON.stringify` throws. Chunks handed out are never changed afterwards.
 */
export class GrowingJsonBody {
  readonly #field: string;
  readonly #max_chains: number;
  #chains: Chain[] = [];
  #frame: Frame | undefined;
  #clock = 0;

  constructor(field: string, max_chains = 4) {
    this.#field = field;
    this.#max_chains = Math.max(1, max_chains);
  }

  encode(value: object): JsonBytes {
    const body = value as Record<string, unknown>;
    const items = body[this.#field];
    if (!Array.isArray(items) || typeof body.toJSON === 'function') return JsonBytes.of(body);
    const frame = this.#frame_of(body);
    if (frame === undefined) return JsonBytes.of(body);
    const chain = this.#chain_for(items);
    return new JsonBytes([frame.head, chain.bytes.subarray(0, chain.length), frame.tail]);
  }

  /** The head and tail of `body` around its array: the last call's when its values are the same. */
  #frame_of(body: Record<string, unknown>): Frame | undefined {
    const keys = Object.keys(body);
    const last = this.#frame;
    if (last !== undefined && last.keys.length === keys.length) {
      let same = true;
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index] as string;
        if (key !== last.keys[index] || (key !== this.#field && body[key] !== last.values[index])) {
          same = false;
          break;
        }
      }
      if (same) return last;
    }
    const values = keys.map((key) => body[key]);
    const text = JSON.stringify({ ...body, [this.#field]: MARK });
    const at = text.indexOf(MARK_JSON);
    if (at < 0 || text.indexOf(MARK_JSON, at + 1) >= 0) return undefined;
    const frame: Frame = {
      keys,
      values,
      head: Buffer.from(`${text.slice(0, at)}[`),
      tail: Buffer.from(`]${text.slice(at + MARK_JSON.length)}`),
    };
    this.#frame = frame;
    return frame;
  }

  /** The chain holding `items`, brought up to date: the one sharing the longest prefix. */
  #chain_for(items: readonly unknown[]): Chain {
    let best: Chain | undefined;
    let best_shared = 0;
    for (const chain of this.#chains) {
      const shared = shared_prefix(chain.items, items);
      if (best === undefined || shared > best_shared) {
        best = chain;
        best_shared = shared;
      }
    }
    let chain: Chain;
    if (best !== undefined && best_shared > 0) {
      chain = best;
      if (best_shared < chain.items.length) cut(chain, best_shared);
    } else {
      chain = {
        items: [],
        ends: [],
        bytes: Buffer.allocUnsafe(MIN_CAPACITY),
        length: 0,
        used: 0,
      };
      if (this.#chains.length >= this.#max_chains) {
        const oldest = this.#chains.reduce((a, b) => (b.used < a.used ? b : a));
        this.#chains.splice(this.#chains.indexOf(oldest), 1);
      }
      this.#chains.push(chain);
    }
    chain.used = ++this.#clock;
    for (let index = chain.items.length; index < items.length; index++) {
      append(chain, items[index]);
    }
    return chain;
  }
}

/** How many leading items `a` and `b` share (by identity). */
function shared_prefix(a: readonly unknown[], b: readonly unknown[]): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a[index] === b[index]) index++;
  return index;
}

/**
 * Keeps the first `count` items of `chain`. Their bytes go to a new buffer: the old one may still
 * be being sent, and the bytes after them are in it.
 */
function cut(chain: Chain, count: number): void {
  const length = count === 0 ? 0 : (chain.ends[count - 1] as number);
  const bytes = Buffer.allocUnsafe(Math.max(MIN_CAPACITY, length * 2));
  chain.bytes.copy(bytes, 0, 0, length);
  chain.bytes = bytes;
  chain.length = length;
  chain.items.length = count;
  chain.ends.length = count;
}

/** Encodes one more item after the chain's last, growing its buffer when it is full. */
function append(chain: Chain, item: unknown): void {
  const text = JSON.stringify(item) ?? 'null';
  const comma = chain.items.length > 0 ? 1 : 0;
  const size = comma + Buffer.byteLength(text);
  if (chain.length + size > chain.bytes.length) {
    const bytes = Buffer.allocUnsafe(Math.max(chain.bytes.length * 2, chain.length + size));
    chain.bytes.copy(bytes, 0, 0, chain.length);
    chain.bytes = bytes;
  }
  if (comma === 1) chain.bytes[chain.length] = COMMA;
  chain.bytes.write(text, chain.length + comma);
  chain.length += size;
  chain.items.push(item);
  chain.ends.push(chain.length);
}

import { JsonBytes } from './json_bytes.js';

/** A run of array items already encoded, and their bytes. */
interface Chain<Item> {
  /** The items encoded, in order (compared by identity). */
  items: Item[];
  /** `ends[i]`: the byte length of the items up to and including `items[i]` (0: none written). */
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
 * chat history does, so that each call maps and serialises only the items that are new: the bytes
 * of the items an earlier call encoded are reused. Items are the caller's own objects (a history's
 * messages), matched by identity and mapped to their wire form by `to_wire` (`undefined`: left
 * out); an item changed in place after it was sent is not seen again. The rest of the body is
 * serialised again unless each of its top-level values is the one the previous call had. A few
 * histories are kept at once (the least recently used is dropped), for a provider shared by
 * several sessions.
 *
 * Contract: `encode(body, items)` gives the bytes of `JSON.stringify` of `body` with `field` set to
 * the wire forms of `items` (those not `undefined`), keys in the order `body` has them (`field`
 * last when `body` lacks it); a body with a `toJSON` is serialised whole. Throws what
 * `JSON.stringify` or `to_wire` throws. Chunks handed out are never changed afterwards.
 */
export class GrowingJsonBody<Item> {
  readonly #field: string;
  readonly #to_wire: (item: Item) => unknown;
  readonly #max_chains: number;
  #chains: Chain<Item>[] = [];
  #frame: Frame | undefined;
  #clock = 0;

  constructor(field: string, to_wire: (item: Item) => unknown, max_chains = 4) {
    this.#field = field;
    this.#to_wire = to_wire;
    this.#max_chains = Math.max(1, max_chains);
  }

  encode(value: object, items: readonly Item[]): JsonBytes {
    const body = value as Record<string, unknown>;
    const frame = typeof body.toJSON === 'function' ? undefined : this.#frame_of(body);
    if (frame === undefined) return JsonBytes.of({ ...body, [this.#field]: this.#wires(items) });
    const chain = this.#chain_for(items);
    return new JsonBytes([frame.head, chain.bytes.subarray(0, chain.length), frame.tail]);
  }

  #wires(items: readonly Item[]): unknown[] {
    const wires: unknown[] = [];
    for (const item of items) {
      const wire = this.#to_wire(item);
      if (wire !== undefined) wires.push(wire);
    }
    return wires;
  }

  /** The head and tail of `body` around its array: the last call's when its values are the same. */
  #frame_of(body: Record<string, unknown>): Frame | undefined {
    const keys = Object.keys(body);
    if (!(this.#field in body)) keys.push(this.#field);
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
  #chain_for(items: readonly Item[]): Chain<Item> {
    let best: Chain<Item> | undefined;
    let best_shared = 0;
    for (const chain of this.#chains) {
      const shared = shared_prefix(chain.items, items);
      if (best === undefined || shared > best_shared) {
        best = chain;
        best_shared = shared;
      }
    }
    let chain: Chain<Item>;
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
      const item = items[index] as Item;
      append(chain, item, this.#to_wire(item));
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
function cut<Item>(chain: Chain<Item>, count: number): void {
  const length = count === 0 ? 0 : (chain.ends[count - 1] as number);
  const bytes = Buffer.allocUnsafe(Math.max(MIN_CAPACITY, length * 2));
  chain.bytes.copy(bytes, 0, 0, length);
  chain.bytes = bytes;
  chain.length = length;
  chain.items.length = count;
  chain.ends.length = count;
}

/**
 * Encodes one more item after the chain's last (`wire`, its wire form; nothing for `undefined`),
 * growing the buffer when it is full.
 */
function append<Item>(chain: Chain<Item>, item: Item, wire: unknown): void {
  if (wire === undefined) {
    chain.items.push(item);
    chain.ends.push(chain.length);
    return;
  }
  const text = JSON.stringify(wire) ?? 'null';
  const comma = chain.length > 0 ? 1 : 0;
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

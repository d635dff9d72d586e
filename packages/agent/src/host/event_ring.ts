import { host_event_json } from './host_event_json.js';
import type { HostEvent } from './session_host_types.js';

/** The default bounds of a session's ring: 512 events, 4 MiB. */
export const DEFAULT_RING_EVENTS = 512;
export const DEFAULT_RING_BYTES = 4 * 1024 * 1024;

/** What a ring answers a subscriber asking for what came after `after_seq`. */
export type ReplayAnswer =
  | { truncated: false; events: readonly HostEvent[] }
  | { truncated: true; events: readonly [] };

/**
 * The newest events of one session, bounded by count and by size (the JSON length of each
 * event), oldest dropped first.
 *
 * Contract: `push` keeps events in seq order and never throws (an event that cannot be measured
 * counts as 1 KiB); `after(seq)` gives every held event with a larger seq, or `truncated` when an
 * event after `seq` was dropped already, or when `seq` is beyond the last seq (another process).
 * A dropped event is let go at once: the ring never holds more than `max_events` events (its
 * slots are a circular buffer, grown up to that size as events come). With `max_events: 0` it
 * holds none and measures none: for a host whose subscribers all listen from the start.
 */
export class EventRing {
  readonly max_events: number;
  readonly max_bytes: number;
  /** The slots; `#start` is the oldest held, `#size` are held, wrapping at `#slots.length`. */
  #slots: (HostEvent | undefined)[] = [];
  #sizes: number[] = [];
  #start = 0;
  #size = 0;
  #bytes = 0;
  /** The seq of the last event pushed (0 before any). */
  #last_seq = 0;

  constructor(options: { max_events?: number; max_bytes?: number } = {}) {
    this.max_events = Math.max(0, Math.floor(options.max_events ?? DEFAULT_RING_EVENTS));
    this.max_bytes = Math.max(1, Math.floor(options.max_bytes ?? DEFAULT_RING_BYTES));
  }

  get last_seq(): number {
    return this.#last_seq;
  }

  /** How many events are held. */
  get size(): number {
    return this.#size;
  }

  /** The bytes held (JSON length). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The oldest seq held; `last_seq + 1` when empty. */
  get first_seq(): number {
    return this.#size === 0 ? this.#last_seq + 1 : (this.#slots[this.#start] as HostEvent).seq;
  }

  push(event: HostEvent): void {
    if (this.max_events === 0) {
      this.#last_seq = event.seq;
      return;
    }
    let size: number;
    try {
      size = host_event_json(event).length;
    } catch {
      size = 1024;
    }
    if (this.#size === this.max_events) this.#drop_oldest();
    if (this.#size === this.#slots.length) this.#grow();
    const index = (this.#start + this.#size) % this.#slots.length;
    this.#slots[index] = event;
    this.#sizes[index] = size;
    this.#size += 1;
    this.#bytes += size;
    this.#last_seq = event.seq;
    while (this.#bytes > this.max_bytes && this.#size > 1) this.#drop_oldest();
  }

  /** Full but below `max_events`: twice the slots (at most `max_events`), oldest first. */
  #grow(): void {
    const capacity = Math.min(this.max_events, Math.max(16, this.#slots.length * 2));
    const slots: (HostEvent | undefined)[] = this.#ordered(0);
    const sizes = this.#ordered_sizes();
    slots.length = capacity;
    sizes.length = capacity;
    this.#slots = slots.fill(undefined, this.#size);
    this.#sizes = sizes.fill(0, this.#size);
    this.#start = 0;
  }

  #drop_oldest(): void {
    this.#bytes -= this.#sizes[this.#start] as number;
    this.#slots[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.#slots.length;
    this.#size -= 1;
  }

  /** The held events from the `skip`-th oldest on, oldest first. */
  #ordered(skip: number): HostEvent[] {
    const out: HostEvent[] = [];
    const capacity = this.#slots.length;
    for (let offset = skip; offset < this.#size; offset += 1) {
      out.push(this.#slots[(this.#start + offset) % capacity] as HostEvent);
    }
    return out;
  }

  #ordered_sizes(): number[] {
    const out: number[] = [];
    const capacity = this.#sizes.length;
    for (let offset = 0; offset < this.#size; offset += 1) {
      out.push(this.#sizes[(this.#start + offset) % capacity] as number);
    }
    return out;
  }

  after(seq: number): ReplayAnswer {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.#last_seq) {
      return { truncated: true, events: [] };
    }
    const first = this.first_seq;
    if (seq + 1 < first) return { truncated: true, events: [] };
    return { truncated: false, events: this.#ordered(seq + 1 - first) };
  }
}

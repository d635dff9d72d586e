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
 */
export class EventRing {
  readonly max_events: number;
  readonly max_bytes: number;
  #events: HostEvent[] = [];
  #sizes: number[] = [];
  #head = 0;
  #bytes = 0;
  /** The seq of the last event pushed (0 before any). */
  #last_seq = 0;

  constructor(options: { max_events?: number; max_bytes?: number } = {}) {
    this.max_events = Math.max(1, Math.floor(options.max_events ?? DEFAULT_RING_EVENTS));
    this.max_bytes = Math.max(1, Math.floor(options.max_bytes ?? DEFAULT_RING_BYTES));
  }

  get last_seq(): number {
    return this.#last_seq;
  }

  /** How many events are held. */
  get size(): number {
    return this.#events.length - this.#head;
  }

  /** The bytes held (JSON length). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The oldest seq held; `last_seq + 1` when empty. */
  get first_seq(): number {
    return this.#events[this.#head]?.seq ?? this.#last_seq + 1;
  }

  push(event: HostEvent): void {
    let size: number;
    try {
      size = host_event_json(event).length;
    } catch {
      size = 1024;
    }
    this.#events.push(event);
    this.#sizes.push(size);
    this.#bytes += size;
    this.#last_seq = event.seq;
    while (this.size > this.max_events || (this.#bytes > this.max_bytes && this.size > 1)) {
      this.#bytes -= this.#sizes[this.#head] as number;
      this.#head += 1;
    }
    // compact now and then, so dropped events do not pile up behind the head: at most as many
    // again as the ring holds
    if (this.#head >= Math.min(this.max_events, 1024) && this.#head * 2 > this.#events.length) {
      this.#events = this.#events.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
  }

  after(seq: number): ReplayAnswer {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.#last_seq) {
      return { truncated: true, events: [] };
    }
    if (seq + 1 < this.first_seq) return { truncated: true, events: [] };
    const offset = seq + 1 - this.first_seq;
    return { truncated: false, events: this.#events.slice(this.#head + offset) };
  }
}

import { DeltaCoalescer, type DeltaKind } from './delta_coalescer.js';
import { EventRing } from './event_ring.js';
import type {
  HostEvent,
  HostEventPayloads,
  HostEventType,
  SubscribeOptions,
  Subscription,
} from './session_host_types.js';

interface Listener {
  listener: (event: HostEvent) => void;
  can_approve: boolean;
}

/** What a session's event stream is made for. */
export interface SessionEventStreamInit {
  session_id: string;
  epoch: string;
  ring_events?: number;
  ring_bytes?: number;
  coalesce_ms: number;
}

/**
 * The events of one live session: the next seq, the ring kept for replay, text deltas coalesced
 * before they go out, and the subscribers.
 *
 * Contract: `publish` sends pending deltas first, then gives the event the next seq, keeps it in
 * the ring and hands it to every listener synchronously (a throwing listener is ignored);
 * `delta` goes through the coalescer (see `DeltaCoalescer`) and out the same way; `subscribe`
 * replays what the subscriber missed after `after_seq` (or says `truncated`: another epoch, or
 * an event after it no longer held) before it delivers live, synchronously.
 */
export class SessionEventStream {
  readonly ring: EventRing;
  readonly #session_id: string;
  readonly #epoch: string;
  readonly #coalescer: DeltaCoalescer;
  readonly #listeners = new Set<Listener>();
  #seq = 0;

  constructor(init: SessionEventStreamInit) {
    this.#session_id = init.session_id;
    this.#epoch = init.epoch;
    this.ring = new EventRing({
      ...(init.ring_events === undefined ? {} : { max_events: init.ring_events }),
      ...(init.ring_bytes === undefined ? {} : { max_bytes: init.ring_bytes }),
    });
    this.#coalescer = new DeltaCoalescer(init.coalesce_ms, (kind, turn_id, text) =>
      this.#append(kind === 'reasoning' ? 'reasoning.delta' : 'message.delta', { turn_id, text }),
    );
  }

  /** How many subscribers answer permission requests. */
  get approvers(): number {
    let count = 0;
    for (const entry of this.#listeners) if (entry.can_approve) count += 1;
    return count;
  }

  /** Sends pending deltas, then `type` as the session's next event. */
  publish<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): void {
    this.#coalescer.flush();
    this.#append(type, payload);
  }

  /** A piece of a turn's streamed text or reasoning, coalesced with its neighbours. */
  delta(kind: DeltaKind, turn_id: string, text: string): void {
    this.#coalescer.push(kind, turn_id, text);
  }

  #append<K extends HostEventType>(type: K, payload: HostEventPayloads[K]): void {
    this.#seq += 1;
    const event = {
      session_id: this.#session_id,
      epoch: this.#epoch,
      seq: this.#seq,
      type,
      payload,
    } as HostEvent;
    this.ring.push(event);
    for (const entry of this.#listeners) {
      try {
        entry.listener(event);
      } catch {
        // a subscriber's failure is its own; the others and the run go on
      }
    }
  }

  /** Replays what the subscriber missed (or says truncated), then delivers live. Synchronous. */
  subscribe(listener: (event: HostEvent) => void, options: SubscribeOptions = {}): Subscription {
    let truncated = false;
    let replayed = 0;
    if (options.epoch !== undefined && options.epoch !== this.#epoch) {
      truncated = true;
    } else if (options.after_seq !== undefined) {
      const answer = this.ring.after(options.after_seq);
      truncated = answer.truncated;
      for (const event of answer.events) {
        replayed += 1;
        try {
          listener(event);
        } catch {
          // as for live delivery
        }
      }
    }
    const entry: Listener = { listener, can_approve: options.can_approve === true };
    this.#listeners.add(entry);
    return {
      replayed,
      truncated,
      unsubscribe: () => {
        this.#listeners.delete(entry);
      },
    };
  }

  /** Sends pending deltas and stops the coalescer's timer. */
  flush_and_stop(): void {
    this.#coalescer.close();
  }

  /** Forgets every subscriber. */
  drop_listeners(): void {
    this.#listeners.clear();
  }
}

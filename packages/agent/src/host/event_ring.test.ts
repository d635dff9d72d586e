import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { EventRing } from './event_ring.js';
import type { HostEvent } from './session_host_types.js';

function event(seq: number, text = 'x'): HostEvent {
  return {
    session_id: 's',
    epoch: 'e',
    seq,
    type: 'message.delta',
    payload: { turn_id: 't', text },
  };
}

describe('EventRing', () => {
  it('replays what came after a seq, and says truncated once it was dropped', () => {
    const ring = new EventRing({ max_events: 3 });
    for (let seq = 1; seq <= 5; seq++) ring.push(event(seq));
    expect(ring.first_seq).toBe(3);
    expect(ring.after(3)).toMatchObject({ truncated: false });
    expect(ring.after(3).events.map((held) => held.seq)).toEqual([4, 5]);
    expect(ring.after(2).events.map((held) => held.seq)).toEqual([3, 4, 5]);
    expect(ring.after(1).truncated).toBe(true);
    expect(ring.after(5).events).toEqual([]);
    expect(ring.after(6).truncated).toBe(true);
  });

  it('with max_events 0 holds and measures nothing, and still knows the last seq', () => {
    const ring = new EventRing({ max_events: 0 });
    const unmeasurable = event(2);
    (unmeasurable.payload as { text: unknown }).text = 10n; // JSON.stringify would throw
    ring.push(event(1));
    ring.push(unmeasurable);
    expect(ring.size).toBe(0);
    expect(ring.bytes).toBe(0);
    expect(ring.last_seq).toBe(2);
    expect(ring.after(2)).toEqual({ truncated: false, events: [] });
    expect(ring.after(1).truncated).toBe(true);
  });

  it('is bounded by bytes too, keeping at least the newest event', () => {
    const ring = new EventRing({ max_events: 100, max_bytes: 400 });
    for (let seq = 1; seq <= 10; seq++) ring.push(event(seq, 'y'.repeat(100)));
    expect(ring.size).toBeLessThan(10);
    expect(ring.bytes).toBeLessThanOrEqual(400);
    ring.push(event(11, 'z'.repeat(1000)));
    expect(ring.size).toBe(1);
    expect(ring.after(10).events.map((held) => held.seq)).toEqual([11]);
  });

  it('compacts its storage under a long stream', () => {
    const ring = new EventRing({ max_events: 10 });
    for (let seq = 1; seq <= 5000; seq++) ring.push(event(seq));
    expect(ring.size).toBe(10);
    expect(ring.after(4990).events).toHaveLength(10);
  });

  it('replays in order across the wrap of its slots, at every fill level', () => {
    const ring = new EventRing({ max_events: 20 });
    for (let seq = 1; seq <= 137; seq++) {
      ring.push(event(seq));
      const first = Math.max(1, seq - 19);
      expect(ring.size).toBe(seq - first + 1);
      expect(ring.first_seq).toBe(first);
      const all = ring.after(first - 1);
      expect(all.truncated).toBe(false);
      expect(all.events.map((held) => held.seq)).toEqual(
        Array.from({ length: seq - first + 1 }, (_, index) => first + index),
      );
      expect(ring.after(seq - 1).events.map((held) => held.seq)).toEqual([seq]);
    }
    expect(ring.after(116).truncated).toBe(true);
  });

  it('keeps the byte count right as it wraps', () => {
    const ring = new EventRing({ max_events: 5, max_bytes: 10_000 });
    const size = JSON.stringify(event(1, 'y'.repeat(50))).length;
    for (let seq = 1; seq <= 23; seq++) ring.push(event(seq, 'y'.repeat(50)));
    expect(ring.size).toBe(5);
    expect(Math.abs(ring.bytes - 5 * size)).toBeLessThanOrEqual(5 * 2); // seqs of 1 or 2 digits
  });

  it('lets go of an event as soon as it is dropped', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const ring = new EventRing({ max_events: 8 });
    let first: WeakRef<HostEvent> | undefined;
    for (let seq = 1; seq <= 9; seq++) {
      const made = event(seq);
      first ??= new WeakRef(made);
      ring.push(made);
    }
    ring.push(event(10)); // the newest event's text is kept for its subscribers, not an old one's
    // a WeakRef holds its target until the current job ends: collect on a later turn
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(first?.deref()).toBeUndefined();
    expect(ring.first_seq).toBe(3);
  });
});

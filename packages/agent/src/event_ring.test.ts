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
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { create_idle_timeout } from './idle_timeout.js';

const CONTEXT = { provider: 'test', model: 'm-1' };

describe('create_idle_timeout', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires after the limit of silence, never sooner, at most a quarter later', () => {
    const idle = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 1_000 });
    vi.advanceTimersByTime(999);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(251);
    expect(idle.signal.aborted).toBe(true);
    expect(idle.timed_out).toBe(true);
    expect(idle.signal.reason).toMatchObject({ kind: 'timeout' });
    expect(idle.error().message).toBe('test (m-1): timeout error: no data for 1000 ms');
    expect(idle.error()).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('counts the silence from the last touch', () => {
    const idle = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 1_000 });
    for (let step = 0; step < 20; step++) {
      vi.advanceTimersByTime(300);
      idle.touch();
    }
    expect(idle.signal.aborted).toBe(false);
    // the last touch was just now: a full limit of silence is needed again
    vi.advanceTimersByTime(999);
    expect(idle.signal.aborted).toBe(false);
    vi.advanceTimersByTime(251);
    expect(idle.timed_out).toBe(true);
  });

  it('never fires once cleared, and not at all when disabled or beyond a timer', () => {
    const cleared = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 100 });
    cleared.clear();
    cleared.clear();
    const never = [0, Number.POSITIVE_INFINITY, 2 ** 40].map((idle_timeout_ms) =>
      create_idle_timeout({ ...CONTEXT, idle_timeout_ms }),
    );
    vi.advanceTimersByTime(10_000);
    for (const idle of [cleared, ...never]) {
      expect(idle.signal.aborted).toBe(false);
      expect(idle.timed_out).toBe(false);
    }
    expect(vi.getTimerCount()).toBe(0);
  });

  it("follows the caller's signal until cleared", () => {
    const caller = new AbortController();
    const idle = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 1_000, signal: caller.signal });
    caller.abort('gone');
    expect(idle.signal.aborted).toBe(true);
    expect(idle.signal.reason).toBe('gone');
    vi.advanceTimersByTime(5_000);
    expect(idle.timed_out).toBe(false);
    expect(vi.getTimerCount()).toBe(0);

    const later = new AbortController();
    const done = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 1_000, signal: later.signal });
    done.clear();
    later.abort();
    expect(done.signal.aborted).toBe(false);
    const before = create_idle_timeout({
      ...CONTEXT,
      idle_timeout_ms: 1_000,
      signal: AbortSignal.abort('early'),
    });
    expect(before.signal.reason).toBe('early');
  });

  it('stops with an AbortError of its own', () => {
    const idle = create_idle_timeout({ ...CONTEXT, idle_timeout_ms: 1_000 });
    idle.stop();
    expect(idle.stopped).toBe(true);
    expect(idle.timed_out).toBe(false);
    expect(idle.signal.reason).toMatchObject({ name: 'AbortError' });
    expect(vi.getTimerCount()).toBe(0);
  });
});

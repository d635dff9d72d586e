import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeltaCoalescer } from './delta_coalescer.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('DeltaCoalescer', () => {
  it('sends the first piece at once and joins the rest of the window', () => {
    const sent: string[] = [];
    const coalescer = new DeltaCoalescer(33, (kind, _turn, text) => sent.push(`${kind}:${text}`));
    coalescer.push('text', 't', 'He');
    expect(sent).toEqual(['text:He']);
    for (const piece of ['l', 'l', 'o']) coalescer.push('text', 't', piece);
    expect(sent).toEqual(['text:He']);
    vi.advanceTimersByTime(33);
    expect(sent).toEqual(['text:He', 'text:llo']);
    vi.advanceTimersByTime(100);
    coalescer.push('text', 't', '!');
    expect(sent.at(-1)).toBe('text:!');
    coalescer.close();
  });

  it('keeps kinds apart and in order, and flush sends what is pending', () => {
    const sent: string[] = [];
    const coalescer = new DeltaCoalescer(33, (kind, _turn, text) => sent.push(`${kind}:${text}`));
    coalescer.push('reasoning', 't', 'a');
    coalescer.push('reasoning', 't', 'b');
    coalescer.push('text', 't', 'c');
    coalescer.push('text', 't', 'd');
    coalescer.flush();
    expect(sent).toEqual(['reasoning:a', 'reasoning:b', 'text:cd']);
    coalescer.close();
  });

  it('limits a fast stream to about one delta per window', () => {
    const sent: string[] = [];
    const coalescer = new DeltaCoalescer(33, (_kind, _turn, text) => sent.push(text));
    for (let ms = 0; ms < 1000; ms++) {
      coalescer.push('text', 't', 'x');
      vi.advanceTimersByTime(1);
    }
    coalescer.close();
    expect(sent.join('')).toBe('x'.repeat(1000));
    expect(sent.length).toBeLessThanOrEqual(32);
  });
});

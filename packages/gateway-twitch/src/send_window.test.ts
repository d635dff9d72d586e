import { describe, expect, it } from 'vitest';
import { SendWindow } from './send_window.js';

describe('SendWindow', () => {
  it('never lets more than `limit` sends into any window', async () => {
    const window = new SendWindow({ limit: 5, window_ms: 300 });
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, () => window.take().then(() => times.push(Date.now()))),
    );
    expect(times).toHaveLength(12);
    // a time is read when its send's callback runs, a little after the window granted it: a
    // callback that ran late shortens the gap measured after it by a millisecond or two under load
    for (let index = 5; index < times.length; index += 1) {
      expect((times[index] as number) - (times[index - 5] as number)).toBeGreaterThanOrEqual(295);
    }
  });

  it('refuses at once past max_waiting, and serves the rest in order', async () => {
    const window = new SendWindow({ limit: 1, window_ms: 100, max_waiting: 2 });
    const order: number[] = [];
    const first = window.take().then(() => order.push(1));
    const second = window.take().then(() => order.push(2));
    expect(await window.take()).toBe(false);
    await Promise.all([first, second]);
    expect(order).toEqual([1, 2]);
  });

  it('gives each send its own ceiling: a lower one waits until enough sends left the window', async () => {
    const window = new SendWindow({ limit: 2, window_ms: 300 });
    const start = Date.now();
    for (let index = 0; index < 5; index += 1) expect(await window.take(5)).toBe(true);
    // five sends went at once under the higher ceiling
    expect(Date.now() - start).toBeLessThan(300);
    // under the default ceiling of 2, this one waits until four of the five left the window
    await window.take();
    expect(Date.now() - start).toBeGreaterThanOrEqual(300);
  });
});

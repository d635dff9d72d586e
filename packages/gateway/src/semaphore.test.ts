import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

describe('Semaphore', () => {
  it('lets at most limit holders in, the rest in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const order: number[] = [];
    await semaphore.acquire();
    await semaphore.acquire();
    const waiters = [1, 2, 3].map((index) => semaphore.acquire().then(() => order.push(index)));
    expect(semaphore.waiting).toBe(3);
    semaphore.release();
    await Promise.resolve();
    expect(order).toEqual([1]);
    semaphore.release();
    semaphore.release();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(semaphore.held).toBe(2);
  });

  it('refuses a limit below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});

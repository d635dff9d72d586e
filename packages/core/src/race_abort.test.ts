import { describe, expect, it } from 'vitest';
import { abort_latch, race_abort } from './race_abort.js';

describe('race_abort', () => {
  it('settles like the promise when nothing aborts', async () => {
    expect(await race_abort(Promise.resolve(1), undefined)).toEqual({ aborted: false, value: 1 });
    const controller = new AbortController();
    expect(await race_abort(Promise.resolve(2), controller.signal)).toEqual({
      aborted: false,
      value: 2,
    });
    await expect(race_abort(Promise.reject(new Error('x')), controller.signal)).rejects.toThrow(
      'x',
    );
  });

  it('resolves aborted as soon as the signal fires, without waiting', async () => {
    const controller = new AbortController();
    const racing = race_abort(new Promise(() => {}), controller.signal);
    controller.abort();
    expect(await racing).toEqual({ aborted: true });
    expect(await race_abort(Promise.resolve(1), AbortSignal.abort())).toEqual({ aborted: true });
  });

  it('swallows a rejection that comes because of the abort', async () => {
    const controller = new AbortController();
    const failing = new Promise((_resolve, reject) =>
      controller.signal.addEventListener('abort', () => reject(new Error('AbortError'))),
    );
    const racing = race_abort(failing, controller.signal);
    controller.abort();
    expect(await racing).toEqual({ aborted: true });
    const late = Promise.reject(new Error('late'));
    expect(await race_abort(late, AbortSignal.abort())).toEqual({ aborted: true });
  });
});

describe('abort_latch', () => {
  it('resolves once the signal aborts and detaches on dispose', async () => {
    const controller = new AbortController();
    const latch = abort_latch(controller.signal);
    const winner = Promise.race([
      latch.promise,
      new Promise((resolve) => setTimeout(resolve, 50, 'late')),
    ]);
    controller.abort();
    expect(await winner).toEqual({ aborted: true });
    latch.dispose();
    latch.dispose();
    expect(await abort_latch(AbortSignal.abort()).promise).toEqual({ aborted: true });
  });

  it('never resolves without a signal, or after dispose', async () => {
    const controller = new AbortController();
    const latch = abort_latch(controller.signal);
    latch.dispose();
    controller.abort();
    for (const promise of [latch.promise, abort_latch(undefined).promise]) {
      const winner = await Promise.race([
        promise,
        new Promise((resolve) => setTimeout(resolve, 5, 'timeout')),
      ]);
      expect(winner).toBe('timeout');
    }
  });
});

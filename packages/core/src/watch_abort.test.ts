import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watch_abort } from './watch_abort.js';

describe('watch_abort', () => {
  it('calls each watcher once, in order, after the reason is set', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    watch_abort(controller.signal, () => seen.push(`a:${String(controller.signal.reason)}`));
    watch_abort(controller.signal, () => seen.push('b'));
    controller.abort('why');
    controller.abort('again');
    expect(seen).toEqual(['a:why', 'b']);
  });

  it('keeps one listener on the signal however many watch it', () => {
    const controller = new AbortController();
    const stops = Array.from({ length: 20 }, () => watch_abort(controller.signal, () => {}));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops) stop();
    watch_abort(controller.signal, () => {});
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('calls no watcher whose watch was stopped, even by an earlier watcher', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    let stop_b = () => {};
    watch_abort(controller.signal, () => {
      seen.push('a');
      stop_b();
    });
    stop_b = watch_abort(controller.signal, () => seen.push('b'));
    const stop_c = watch_abort(controller.signal, () => seen.push('c'));
    stop_c();
    stop_c();
    watch_abort(controller.signal, () => seen.push('d'));
    controller.abort();
    expect(seen).toEqual(['a', 'd']);
  });

  it('calls the same function watched twice once', () => {
    const controller = new AbortController();
    let calls = 0;
    const listener = () => {
      calls += 1;
    };
    watch_abort(controller.signal, listener);
    watch_abort(controller.signal, listener);
    controller.abort();
    expect(calls).toBe(1);
  });

  it('does not watch a signal that has already aborted', () => {
    let calls = 0;
    const stop = watch_abort(AbortSignal.abort(), () => {
      calls += 1;
    });
    stop();
    expect(calls).toBe(0);
  });

  it('still calls the others when one throws, and throws its error on a later tick', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const thrown = new Promise<unknown>((resolve) => {
      process.once('uncaughtException', resolve);
    });
    watch_abort(controller.signal, () => {
      throw new Error('a listener broke');
    });
    watch_abort(controller.signal, () => seen.push('after'));
    controller.abort();
    expect(seen).toEqual(['after']);
    expect(await thrown).toMatchObject({ message: 'a listener broke' });
  });
});

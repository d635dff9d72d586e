import { describe, expect, it } from 'vitest';
import { AbortHub } from './abort_hub.js';

describe('AbortHub', () => {
  it('fires its listeners once, in order, with the first reason, as an AbortSignal does', () => {
    for (const make of [() => new AbortHub(), () => new AbortController()]) {
      const made = make();
      const signal = made instanceof AbortController ? made.signal : made;
      const abort = (reason: unknown) => made.abort(reason);
      const heard: string[] = [];
      const second = () => heard.push('second');
      signal.addEventListener('abort', () => {
        heard.push(`first ${String(signal.reason)}`);
        signal.removeEventListener('abort', second);
      });
      signal.addEventListener('abort', second);
      signal.addEventListener('abort', () => heard.push('third'));
      expect(signal.aborted).toBe(false);
      abort('why');
      abort('again');
      signal.addEventListener('abort', () => heard.push('late'));
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe('why');
      expect(heard).toEqual(['first why', 'third']);
    }
  });

  it('keeps calling listeners after one throws, and reports that error on a later tick', async () => {
    const hub = new AbortHub();
    const heard: string[] = [];
    hub.addEventListener('abort', () => {
      throw new Error('listener broke');
    });
    hub.addEventListener('abort', () => heard.push('after'));
    const reported = new Promise<unknown>((resolve) => {
      process.once('uncaughtException', resolve);
    });
    hub.abort('stop');
    expect(heard).toEqual(['after']);
    expect(await reported).toMatchObject({ message: 'listener broke' });
  });

  it('gives an AbortSignal that follows it, for fetch', () => {
    const hub = new AbortHub();
    const signal = AbortHub.signal_of(hub);
    expect(signal.aborted).toBe(false);
    hub.abort('gone');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
    const native = new AbortController().signal;
    expect(AbortHub.signal_of(native)).toBe(native);
  });
});

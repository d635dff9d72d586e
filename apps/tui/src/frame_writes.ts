/**
 * One write per frame. ink writes a frame as several writes: the begin-synchronized-update mark,
 * the erase-and-redraw (and the new `<Static>` output, if any), the end mark. On a terminal each
 * write is a system call that can wake the terminal's reader; three per frame triple that work and
 * can let the reader show half a frame. This joins what is written between the two marks into one
 * write, made when the end mark comes.
 */

/** Begin synchronized update (DEC private mode 2026). */
const BEGIN = '\u001B[?2026h';
/** End synchronized update. */
const END = '\u001B[?2026l';

type WriteCallback = (error?: Error | null) => void;

/**
 * `stdout` with its `write` joining each synchronized frame into one write. Contract: bytes reach
 * `stdout` in the order written and none is dropped; writes outside a frame go through at once; a
 * frame whose end mark never comes is written at the end of the current tick anyway. Everything
 * else (`columns`, `rows`, `isTTY`, events) is `stdout`'s own.
 */
export function frame_writes<T extends NodeJS.WritableStream>(stdout: T): T {
  let held: string[] | null = null;
  let callbacks: WriteCallback[] = [];
  const flush = () => {
    if (held === null) return;
    const frame = held.join('');
    const waiting = callbacks;
    held = null;
    callbacks = [];
    return stdout.write(frame, (error?: Error | null) => {
      for (const callback of waiting) callback(error);
    });
  };
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const callback = rest.find((value) => typeof value === 'function') as WriteCallback | undefined;
    if (held === null && chunk !== BEGIN) {
      return (stdout.write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }
    if (held === null) {
      held = [];
      queueMicrotask(flush);
    }
    held.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (callback !== undefined) callbacks.push(callback);
    return chunk === END ? (flush() ?? true) : true;
  };
  return new Proxy(stdout, {
    get(target, key) {
      if (key === 'write') return write;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

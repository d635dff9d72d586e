import { emitKeypressEvents } from 'node:readline';

/**
 * A question answered with one key takes keys only after this long with none pressed since it
 * was asked: keys typed before it appeared (or still being typed as it appears) are dropped,
 * never read as an answer.
 */
export const KEY_ARM_MS = 600;

/** One key, as readline decodes it. */
export interface PressedKey {
  /** The character typed, when it is one (`y`, `5`). */
  text: string;
  /** The key's name: `return`, `escape`, a letter. */
  name: string;
  ctrl: boolean;
}

type KeyStream = NodeJS.ReadableStream & {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => void;
  isRaw?: boolean;
};
type Listener = (...args: unknown[]) => void;

/**
 * Reads one key from the terminal `stdin`, in raw mode, once a quiet spell of `arm_ms` has passed
 * since it was asked (every key pressed before resets the spell and is dropped). Whoever else
 * listens for keys on `stdin` (a chat's readline) hears nothing meanwhile: their listeners are
 * set aside and put back after. Resolves null when `signal` aborts or the input ends; the terminal
 * is left in the mode it was in. Never rejects.
 */
export function read_key(
  stdin: NodeJS.ReadableStream,
  signal: AbortSignal,
  options: { arm_ms?: number; now?: () => number } = {},
): Promise<PressedKey | null> {
  const stream = stdin as KeyStream;
  const arm_ms = options.arm_ms ?? KEY_ARM_MS;
  const now = options.now ?? Date.now;
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(null);
      return;
    }
    emitKeypressEvents(stream);
    const others = stream.listeners('keypress') as Listener[];
    stream.removeAllListeners('keypress');
    const was_raw = stream.isRaw === true;
    if (stream.isTTY === true) stream.setRawMode?.(true);
    let quiet_since = now();
    let done = false;
    const finish = (key: PressedKey | null) => {
      if (done) return;
      done = true;
      stream.removeListener('keypress', on_key);
      stream.removeListener('end', on_end);
      signal.removeEventListener('abort', on_abort);
      for (const listener of others) stream.on('keypress', listener);
      if (stream.isTTY === true) stream.setRawMode?.(was_raw);
      stream.pause();
      resolve(key);
    };
    const on_key = (text: unknown, key: unknown) => {
      const info = (key ?? {}) as { name?: string; ctrl?: boolean; sequence?: string };
      const pressed: PressedKey = {
        text: typeof text === 'string' ? text : '',
        name: info.name ?? (typeof text === 'string' ? text : ''),
        ctrl: info.ctrl === true,
      };
      // Ctrl+C always goes through: it aborts the run
      if (pressed.ctrl && pressed.name === 'c') {
        finish(pressed);
        return;
      }
      const at = now();
      if (at - quiet_since < arm_ms) {
        quiet_since = at;
        return;
      }
      finish(pressed);
    };
    const on_end = () => finish(null);
    const on_abort = () => finish(null);
    stream.on('keypress', on_key);
    stream.once('end', on_end);
    signal.addEventListener('abort', on_abort, { once: true });
    stream.resume();
  });
}

/**
 * Reads one line of text from the terminal `stdin` with a readline of its own (no history, so the
 * line is never recalled at a chat's prompt); others listening for keys hear nothing meanwhile.
 * Resolves null on abort or the end of the input. Never rejects.
 */
export async function read_line(
  stdin: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  prompt: string,
  signal: AbortSignal,
): Promise<string | null> {
  const { createInterface } = await import('node:readline');
  const stream = stdin as KeyStream;
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve(null);
      return;
    }
    emitKeypressEvents(stream);
    const others = stream.listeners('keypress') as Listener[];
    stream.removeAllListeners('keypress');
    const was_raw = stream.isRaw === true;
    const lines = createInterface({ input: stream, output, terminal: true, historySize: 0 });
    let done = false;
    const finish = (answer: string | null) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', on_abort);
      lines.close();
      stream.removeAllListeners('keypress');
      for (const listener of others) stream.on('keypress', listener);
      if (stream.isTTY === true) stream.setRawMode?.(was_raw);
      stream.pause();
      resolve(answer);
    };
    const on_abort = () => finish(null);
    signal.addEventListener('abort', on_abort, { once: true });
    lines.on('SIGINT', () => {
      finish(null);
      process.kill(process.pid, 'SIGINT');
    });
    lines.on('close', () => finish(null));
    lines.question(prompt, (answer) => finish(answer));
  });
}

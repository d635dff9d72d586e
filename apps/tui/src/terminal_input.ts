/**
 * Keys from the terminal: raw mode, bracketed paste on while the TUI runs (and off after), and
 * stdin's bytes through the key parser. A lone ESC is given as Escape after a short wait, in case
 * it is the start of a sequence split across reads.
 */
import { create_key_parser, type Key } from './keys.js';

/** Where keys come from: the terminal, or a test. */
export interface KeySource {
  /** Calls `listener` with each key; returns the function that stops it. */
  on_key(listener: (key: Key) => void): () => void;
}

const BRACKETED_PASTE_ON = '\u001B[?2004h';
const BRACKETED_PASTE_OFF = '\u001B[?2004l';
/** How long a lone ESC waits for the rest of a sequence. */
const ESCAPE_WAIT_MS = 25;

type TtyIn = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => void };

/** A key source fed by hand (tests, benches): `write` takes what a terminal would send. */
export interface ManualKeys extends KeySource {
  write(data: string): void;
}

function make_source(): { source: KeySource; emit: (keys: Key[]) => void } {
  const listeners = new Set<(key: Key) => void>();
  return {
    source: {
      on_key(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    emit(keys) {
      for (const key of keys) for (const listener of [...listeners]) listener(key);
    },
  };
}

/** Keys parsed from strings written to it, as a terminal would send them. */
export function manual_keys(): ManualKeys {
  const parser = create_key_parser();
  const { source, emit } = make_source();
  return {
    ...source,
    write(data) {
      emit(parser.feed(data));
      if (parser.pending()) emit(parser.flush());
    },
  };
}

/**
 * Starts reading keys from `stdin` (raw mode when it is a terminal) and turns bracketed paste on
 * through `stdout`. `detach` undoes both and stops reading; it is idempotent.
 */
export function attach_terminal(
  stdin: TtyIn,
  stdout: NodeJS.WritableStream,
): KeySource & { detach(): void } {
  const parser = create_key_parser();
  const { source, emit } = make_source();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const on_data = (data: Buffer | string) => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    emit(parser.feed(typeof data === 'string' ? data : data.toString('utf8')));
    if (parser.pending()) {
      timer = setTimeout(() => {
        timer = null;
        emit(parser.flush());
      }, ESCAPE_WAIT_MS);
    }
  };
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(true);
  stdout.write(BRACKETED_PASTE_ON);
  stdin.on('data', on_data);
  stdin.resume();
  let attached = true;
  return {
    ...source,
    detach() {
      if (!attached) return;
      attached = false;
      if (timer !== null) clearTimeout(timer);
      stdin.off('data', on_data);
      stdout.write(BRACKETED_PASTE_OFF);
      if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(false);
      stdin.pause();
    },
  };
}

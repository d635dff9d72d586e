import { truncate_text } from '@lich/core';

/** What was read from a piped stdin. */
export interface StdinText {
  text: string;
  /** The size of what was read, in bytes. */
  bytes: number;
  /** Whether `text` was clamped to fit. */
  clamped: boolean;
  /** Nothing came, not even the end, within `first_byte_ms`: stdin was left alone (`text` is ''). */
  silent: boolean;
  /** The input looked like binary data (as `read_file` judges a file): `text` is '' . */
  binary: boolean;
}

/** Options of `read_stdin`. */
export interface ReadStdinOptions {
  /**
   * Give up when neither a byte nor the end arrived within this many milliseconds (a caller that
   * left stdin open as a pipe and never writes to it); absent: wait as long as it takes.
   */
  first_byte_ms?: number;
  /** Called once when `first_byte_ms` passed without a byte (while still waiting, if `keep_waiting`). */
  on_silence?: () => void;
  /** After `first_byte_ms`, call `on_silence` and go on waiting instead of giving up. */
  keep_waiting?: boolean;
}

/** How long `lich "task"` waits for the first byte of a piped stdin by default. */
export const STDIN_FIRST_BYTE_MS = 2_000;

/** Reading stops past this many bytes; the rest is drained, not kept. */
export const STDIN_READ_LIMIT = 64 * 1024 * 1024;

/**
 * Reads all of `stdin` as UTF-8 and clamps it to `max_chars` (head and tail kept, the cut
 * marked). With `first_byte_ms`, stops waiting when nothing arrived in time (`silent`; the
 * stream is released so the process can exit). Input that looks binary is not decoded
 * (`binary`). Rejects only if the stream errors.
 */
export async function read_stdin(
  stdin: NodeJS.ReadableStream,
  max_chars: number,
  options: ReadStdinOptions = {},
): Promise<StdinText> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const iterator = (stdin as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  let next = iterator.next();
  if (options.first_byte_ms !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<'silent'>((resolve) => {
      timer = setTimeout(() => resolve('silent'), options.first_byte_ms);
    });
    const first = await Promise.race([next, silence]);
    clearTimeout(timer);
    if (first === 'silent') {
      options.on_silence?.();
      if (!options.keep_waiting) {
        next.catch(() => undefined);
        // let go of the pipe so that it keeps the process alive no longer
        (stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        return { text: '', bytes: 0, clamped: false, silent: true, binary: false };
      }
    }
  }
  for (;;) {
    const step = await next;
    if (step.done) break;
    const chunk = step.value;
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buffer.length;
    if (bytes - buffer.length < STDIN_READ_LIMIT) chunks.push(buffer);
    next = iterator.next();
  }
  const whole = Buffer.concat(chunks);
  const { BINARY_SAMPLE_BYTES, looks_binary } = await import('@lich/tools');
  if (looks_binary(whole.subarray(0, BINARY_SAMPLE_BYTES))) {
    return { text: '', bytes, clamped: false, silent: false, binary: true };
  }
  const full = whole.toString('utf8');
  const text = truncate_text(full, max_chars);
  return {
    text,
    bytes,
    clamped: text.length !== full.length || bytes > STDIN_READ_LIMIT,
    silent: false,
    binary: false,
  };
}

/** `1.5 MB`, `12 KB`, `300 B`. */
export function format_bytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

/** The task with piped text added as context. */
export function with_stdin_context(task: string, stdin: string): string {
  if (task === '') return stdin;
  if (stdin.trim() === '') return task;
  return `${task}\n\n<stdin>\n${stdin.replace(/\n$/, '')}\n</stdin>`;
}

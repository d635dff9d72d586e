import { truncate_text } from '@lich/core';

/** What was read from a piped stdin. */
export interface StdinText {
  text: string;
  /** The size of what was read, in bytes. */
  bytes: number;
  /** Whether `text` was clamped to fit. */
  clamped: boolean;
}

/** Reading stops past this many bytes; the rest is drained, not kept. */
export const STDIN_READ_LIMIT = 64 * 1024 * 1024;

/**
 * Reads all of `stdin` as UTF-8 and clamps it to `max_chars` (head and tail kept, the cut
 * marked). Rejects only if the stream errors.
 */
export async function read_stdin(
  stdin: NodeJS.ReadableStream,
  max_chars: number,
): Promise<StdinText> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    bytes += buffer.length;
    if (bytes - buffer.length < STDIN_READ_LIMIT) chunks.push(buffer);
  }
  const full = Buffer.concat(chunks).toString('utf8');
  const text = truncate_text(full, max_chars);
  return { text, bytes, clamped: text.length !== full.length || bytes > STDIN_READ_LIMIT };
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

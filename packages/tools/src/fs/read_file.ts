import { closeSync, readSync } from 'node:fs';
import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { output_budget } from '../output_budget.js';
import { refuse_denied } from './denied.js';
import { open_descriptor_in_work_dir } from './safe_fs.js';
import { BINARY_SAMPLE_BYTES, looks_binary } from './text.js';

/** Lines `read_file` returns when the model gives no `limit`. */
export const READ_FILE_DEFAULT_LIMIT = 2_000;
/** A longer line is cut to this many characters in `read_file`'s output. */
export const READ_FILE_MAX_LINE_CHARS = 2_000;

const CHUNK_BYTES = 1 << 20;
/** Files up to this size (less room to see growth) are read into `shared_buffer`. */
const SHARED_BYTES = 64 * 1024;
let shared_buffer: Buffer | undefined;

/** The buffer small files are read into, made on first use. */
function small_file_buffer(): Buffer {
  shared_buffer ??= Buffer.allocUnsafe(SHARED_BYTES);
  return shared_buffer;
}
// enough bytes for READ_FILE_MAX_LINE_CHARS characters of 4-byte UTF-8, and one more to notice a cut
const LINE_BYTES = READ_FILE_MAX_LINE_CHARS * 4 + 4;

const parameters = z
  .object({
    path: z.string().describe('Path of the file, relative to the work dir.'),
    offset: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('1-based number of the first line to read. Default 1.'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`How many lines to read. Default ${READ_FILE_DEFAULT_LIMIT}.`),
  })
  .strict();

/** Arguments of `read_file`. */
export type ReadFileArgs = z.infer<typeof parameters>;

/**
 * `read_file { path, offset?, limit? }`: lines of a text file, numbered like `cat -n`.
 *
 * Contract: streams the file (memory stays bounded whatever its size, and reading the first lines
 * of a 2 GB file costs what reading those lines costs); refuses a binary file, a folder, a path the
 * guard refuses; stops at a line holding binary data (a NUL byte); cuts lines longer than `READ_FILE_MAX_LINE_CHARS`; stops before the executor's
 * output limit and says which `offset` continues; honours the abort signal between chunks.
 */
export const read_file_tool: Tool<ReadFileArgs> = {
  name: 'read_file',
  description:
    'Read a text file. Returns numbered lines ("   12\\tline"). Use offset and limit to read part ' +
    `of a large file (default: the first ${READ_FILE_DEFAULT_LIMIT} lines).`,
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const first = args.offset ?? 1;
    const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
    const budget = output_budget(context);
    // Synchronous reads: each chunk is bounded, and a read through the thread pool costs more
    // than the read itself for the files a model asks for.
    const { fd, size, guarded } = open_descriptor_in_work_dir(context.work_dir, args.path);
    try {
      refuse_denied(context, guarded.path, args.path);
      // No bigger than the file (plus room to see that it grew): a megabyte of external memory
      // per call of a small file makes V8 run full collections turn after turn. A small file is
      // read into one buffer all calls share: nothing below awaits, so no two calls hold it.
      const wanted = Math.min(CHUNK_BYTES, Math.max(size, BINARY_SAMPLE_BYTES) + 4096);
      const buffer = wanted <= SHARED_BYTES ? small_file_buffer() : Buffer.allocUnsafe(wanted);
      // The first read fills the buffer (a small file whole, in one system call); its start is
      // the sample that tells a binary file, and the loop below goes on from it.
      let first_read: number | undefined = readSync(fd, buffer, 0, buffer.length, 0);
      const sample_size = Math.min(first_read, BINARY_SAMPLE_BYTES);
      if (looks_binary(buffer.subarray(0, sample_size))) {
        return {
          ok: false,
          output: `'${args.path}' looks like a binary file (${size} bytes); read_file shows text files only.`,
        };
      }
      if (size === 0 && sample_size === 0) return '(empty file)';

      const out: string[] = [];
      let out_chars = 0;
      let line = 1;
      /** The start of a line begun in an earlier chunk (its first `LINE_BYTES` bytes, copied). */
      let carried: Buffer[] = [];
      let carried_bytes = 0;
      let line_has_bytes = false;
      let stopped: 'limit' | 'budget' | 'binary' | undefined;
      let position = 0;
      const last = first + limit - 1;

      const emit = (text: string): boolean => {
        const entry = `${String(line).padStart(6)}\t${text}`;
        if (out_chars + entry.length + 1 > budget && out.length > 0) return false;
        out.push(entry);
        out_chars += entry.length + 1;
        return true;
      };

      let at_end = false;
      reading: while (!at_end) {
        // the executor checked before the call began: from the second chunk on
        if (position > 0) context.signal.throwIfAborted();
        const bytes_read = first_read ?? readSync(fd, buffer, 0, buffer.length, position);
        first_read = undefined;
        if (bytes_read === 0) break;
        // a short read of a regular file is its end: no read more to be told so
        at_end = bytes_read < buffer.length;
        position += bytes_read;
        const chunk = buffer.subarray(0, bytes_read);
        /** The first NUL byte at or after the line being read (`bytes_read` when none). */
        let nul = -1;
        let start = 0;
        while (start < bytes_read) {
          if (line < first) {
            // skipping: count newlines only
            const newline = chunk.indexOf(10, start);
            if (newline === -1) {
              line_has_bytes = true;
              break;
            }
            line += 1;
            line_has_bytes = false;
            start = newline + 1;
            continue;
          }
          if (line > last) {
            stopped = 'limit';
            break reading;
          }
          const newline = chunk.indexOf(10, start);
          const end = newline === -1 ? bytes_read : newline;
          // what is kept of the line: its first LINE_BYTES bytes
          const take_end = Math.min(end, start + LINE_BYTES - carried_bytes);
          if (end > start) line_has_bytes = true;
          if (take_end > start) {
            if (nul < start) {
              nul = chunk.indexOf(0, start);
              if (nul === -1) nul = bytes_read;
            }
            if (nul < take_end) {
              // text at the start, binary further on (a log with holes, an archive): stop here
              stopped = 'binary';
              break reading;
            }
          }
          if (newline === -1) {
            // the line goes on in the next chunk: copy, since `buffer` is read into again
            if (take_end > start) {
              carried.push(Buffer.from(chunk.subarray(start, take_end)));
              carried_bytes += take_end - start;
            }
            break;
          }
          let text: string;
          if (carried_bytes === 0) {
            text = render_line(chunk, start, take_end, take_end - start >= LINE_BYTES);
          } else {
            if (take_end > start) carried.push(chunk.subarray(start, take_end));
            const whole = Buffer.concat(carried);
            text = render_line(whole, 0, whole.length, whole.length >= LINE_BYTES);
            carried = [];
            carried_bytes = 0;
          }
          if (!emit(text)) {
            stopped = 'budget';
            break reading;
          }
          line_has_bytes = false;
          line += 1;
          start = newline + 1;
        }
      }
      if (stopped === undefined && line_has_bytes && line >= first && line <= last) {
        const whole = Buffer.concat(carried);
        if (emit(render_line(whole, 0, whole.length, whole.length >= LINE_BYTES))) line += 1;
        else stopped = 'budget';
      } else if (stopped === undefined && line_has_bytes) {
        line += 1;
      }
      const lines_seen = line - 1;
      if (out.length === 0 && stopped === 'binary') {
        return {
          ok: false,
          output: `line ${line} of '${args.path}' holds binary data; read_file shows text only.`,
        };
      }
      if (out.length === 0 && stopped === undefined) {
        return {
          ok: false,
          output: `offset ${first} is past the end of '${args.path}', which has ${lines_seen} line${lines_seen === 1 ? '' : 's'}.`,
        };
      }
      const shown_last = first + out.length - 1;
      let text = out.join('\n');
      if (stopped === 'limit') {
        text += `\n(lines ${first}-${shown_last} shown; the file goes on: call read_file with offset=${shown_last + 1} for more)`;
      } else if (stopped === 'binary') {
        text += `\n(line ${line} holds binary data; stopped before it)`;
      } else if (stopped === 'budget') {
        text += `\n(output limit reached after line ${shown_last}; call read_file with offset=${shown_last + 1} for more)`;
      }
      return text;
    } finally {
      closeSync(fd);
    }
  },
};

/** The text of `bytes[start, end)`, a line without its `\n` (and `\r`), cut when too long. */
function render_line(bytes: Buffer, start: number, end: number, cut_bytes: boolean): string {
  let text = bytes.toString('utf8', start, end);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.length > READ_FILE_MAX_LINE_CHARS || cut_bytes) {
    return `${text.slice(0, READ_FILE_MAX_LINE_CHARS)} …[line cut at ${READ_FILE_MAX_LINE_CHARS} characters]`;
  }
  return text;
}

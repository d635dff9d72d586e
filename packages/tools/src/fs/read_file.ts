import { basename } from 'node:path';
import { image_info, type Tool, type ToolOutput } from '@lich/core';
import { z } from 'zod';
import { output_budget } from '../output_budget.js';
import { refuse_denied } from './denied.js';
import { LineScanner } from './line_scanner.js';
import { open_in_work_dir } from './safe_fs.js';
import { BINARY_SAMPLE_BYTES, looks_binary } from './text.js';

/** Lines `read_file` returns when the model gives no `limit`. */
export const READ_FILE_DEFAULT_LIMIT = 2_000;
/** A longer line is cut to this many characters in `read_file`'s output. */
export const READ_FILE_MAX_LINE_CHARS = 2_000;

/**
 * The largest picture `read_file` returns (it is scaled to the model's limits when sent, so
 * this only bounds what is read and kept in the session).
 */
export const READ_FILE_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** The most bytes read at once. */
const CHUNK_BYTES = 1 << 20;

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
 * A picture (PNG, JPEG, GIF, WebP, up to `READ_FILE_MAX_IMAGE_BYTES`) comes back whole as an
 * image part, for a model that can see; other binary files are refused.
 *
 * Contract: streams the file (memory stays bounded whatever its size, and reading the first lines
 * of a 2 GB file costs what reading those lines costs); refuses a binary file, a folder, a path the
 * guard refuses; stops at a line holding binary data (a NUL byte); cuts lines longer than `READ_FILE_MAX_LINE_CHARS`; stops before the executor's
 * output limit and says which `offset` continues; reads asynchronously, one bounded chunk at a
 * time, so the abort signal and the time limit act between chunks and a long scan never blocks
 * other sessions (`LineScanner` does the counting).
 */
/** The whole file behind `handle` (`size` bytes; a file that shrank meanwhile gives fewer). */
async function read_whole(
  handle: Awaited<ReturnType<typeof open_in_work_dir>>['handle'],
  size: number,
): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const { bytesRead } = await handle.read(bytes, filled, size - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return bytes.subarray(0, filled);
}

export const read_file_tool: Tool<ReadFileArgs> = {
  name: 'read_file',
  description:
    'Read a text file, or look at a picture (PNG, JPEG, GIF, WebP). Returns numbered lines ("   12\\tline"). Use offset and limit to read part ' +
    `of a large file (default: the first ${READ_FILE_DEFAULT_LIMIT} lines).`,
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const first = args.offset ?? 1;
    const limit = args.limit ?? READ_FILE_DEFAULT_LIMIT;
    const { handle, size, guarded } = await open_in_work_dir(context.work_dir, args.path);
    try {
      refuse_denied(context, guarded.path, args.path);
      // no bigger than the file (plus room to see that it grew): a small file is one read
      const buffer = Buffer.allocUnsafe(
        Math.min(CHUNK_BYTES, Math.max(size, BINARY_SAMPLE_BYTES) + 4096),
      );
      let { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const sample = buffer.subarray(0, Math.min(bytesRead, BINARY_SAMPLE_BYTES));
      const picture = image_info(buffer.subarray(0, bytesRead));
      if (picture !== undefined) {
        if (size > READ_FILE_MAX_IMAGE_BYTES) {
          return {
            ok: false,
            output: `'${args.path}' is a picture of ${size} bytes, over read_file's limit of ${READ_FILE_MAX_IMAGE_BYTES} bytes.`,
          };
        }
        const bytes =
          size <= bytesRead ? buffer.subarray(0, bytesRead) : await read_whole(handle, size);
        context.signal.throwIfAborted();
        return {
          ok: true,
          output: `'${args.path}' is a picture (${picture.media_type}, ${picture.width}×${picture.height} px, ${bytes.length} bytes): it is attached.`,
          images: [
            {
              type: 'image',
              media_type: picture.media_type,
              data: bytes.toString('base64'),
              name: basename(args.path),
              width: picture.width,
              height: picture.height,
            },
          ],
        };
      }
      if (looks_binary(sample)) {
        return {
          ok: false,
          output: `'${args.path}' looks like a binary file (${size} bytes); read_file shows text files and pictures (PNG, JPEG, GIF, WebP) only.`,
        };
      }
      if (bytesRead === 0) return '(empty file)';
      const scanner = new LineScanner({
        first,
        last: first + limit - 1,
        budget: output_budget(context),
        max_line_chars: READ_FILE_MAX_LINE_CHARS,
      });
      let position = 0;
      for (;;) {
        position += bytesRead;
        if (!scanner.push(buffer.subarray(0, bytesRead))) break;
        // a short read of a regular file is its end
        if (bytesRead < buffer.length) {
          scanner.end();
          break;
        }
        // each read awaits: the abort, the time limit and other sessions all get their turn
        context.signal.throwIfAborted();
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, position));
        if (bytesRead === 0) {
          scanner.end();
          break;
        }
      }
      return report(scanner, args.path, first);
    } finally {
      await handle.close().catch(() => {});
    }
  },
};

/** What the model is told: the lines, and where they stopped and how to go on. */
function report(scanner: LineScanner, path: string, first: number): ToolOutput {
  const { lines, stopped, line } = scanner;
  if (lines.length === 0 && stopped === 'binary') {
    return {
      ok: false,
      output: `line ${line} of '${path}' holds binary data; read_file shows text only.`,
    };
  }
  if (lines.length === 0 && stopped === undefined) {
    const seen = scanner.lines_seen;
    return {
      ok: false,
      output: `offset ${first} is past the end of '${path}', which has ${seen} line${seen === 1 ? '' : 's'}.`,
    };
  }
  const shown_last = first + lines.length - 1;
  let text = lines.join('\n');
  if (stopped === 'limit') {
    text += `\n(lines ${first}-${shown_last} shown; the file goes on: call read_file with offset=${shown_last + 1} for more)`;
  } else if (stopped === 'binary') {
    text += `\n(line ${line} holds binary data; stopped before it)`;
  } else if (stopped === 'budget') {
    text += `\n(output limit reached after line ${shown_last}; call read_file with offset=${shown_last + 1} for more)`;
  }
  return text;
}

import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { require_in_work_dir } from './guard.js';
import { define_builtin } from './registry.js';
import { open_in_work_dir, write_file_atomic } from './safe_fs.js';
import { BINARY_SAMPLE_BYTES, decode_utf8_exact, looks_binary } from './text.js';

/** The largest file `edit_file` will rewrite. */
export const EDIT_FILE_MAX_BYTES = 10 * 1024 * 1024;

const parameters = z
  .object({
    path: z.string().describe('Path of the file, relative to the work dir.'),
    old_text: z
      .string()
      .describe('The exact text to replace, whitespace and indentation included.'),
    new_text: z.string().describe('The text to put in its place.'),
    replace_all: z
      .boolean()
      .default(false)
      .describe('Replace every occurrence. Without it, old_text must occur exactly once.'),
  })
  .strict();

/** Arguments of `edit_file`. */
export type EditFileArgs = z.infer<typeof parameters>;

/**
 * `edit_file { path, old_text, new_text, replace_all? }`: exact text replacement.
 *
 * Contract: replaces `old_text` only when it occurs exactly once, or every occurrence with
 * `replace_all`; zero or several matches are refused with the line numbers involved. Refuses,
 * writing nothing: a path the guard refuses for writing, a binary or non-UTF-8 file (it could not
 * be written back byte for byte), a file over `EDIT_FILE_MAX_BYTES`, an empty `old_text`, a
 * replacement that changes nothing. Writes atomically and returns a unified diff. When the file
 * uses CRLF line ends and `old_text` does not, the texts are matched and written with CRLF.
 */
export const edit_file_tool: Tool<EditFileArgs> = define_builtin({
  name: 'edit_file',
  description:
    'Replace exact text in a file. old_text must match the file exactly (whitespace included) and ' +
    'occur exactly once, unless replace_all is true. Returns a unified diff of the change.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    const refuse = (output: string): ToolOutput => ({ ok: false, output });
    if (args.old_text === '') return refuse('old_text is empty; to create a file use write_file.');
    if (args.old_text === args.new_text) return refuse('old_text and new_text are the same.');
    // refuse a protected path before reading anything
    await require_in_work_dir(context.work_dir, args.path, { for_write: true });
    const { handle, size, guarded } = await open_in_work_dir(context.work_dir, args.path);
    let bytes: Buffer;
    try {
      if (size > EDIT_FILE_MAX_BYTES) {
        return refuse(
          `'${args.path}' is ${size} bytes; edit_file edits files up to ${EDIT_FILE_MAX_BYTES} bytes. Nothing was written.`,
        );
      }
      bytes = await handle.readFile();
    } finally {
      await handle.close().catch(() => {});
    }
    if (looks_binary(bytes.subarray(0, BINARY_SAMPLE_BYTES)) || bytes.includes(0)) {
      return refuse(
        `'${args.path}' is a binary file; edit_file edits text only. Nothing was written.`,
      );
    }
    const before = decode_utf8_exact(bytes);
    if (before === undefined) {
      return refuse(
        `'${args.path}' is not valid UTF-8 text, so it cannot be rewritten exactly. Nothing was written.`,
      );
    }

    let old_text = args.old_text;
    let new_text = args.new_text;
    let positions = find_all(before, old_text);
    if (positions.length === 0 && before.includes('\r\n') && !old_text.includes('\r')) {
      old_text = old_text.replace(/\n/g, '\r\n');
      new_text = new_text.replace(/\n/g, '\r\n');
      positions = find_all(before, old_text);
    }
    if (positions.length === 0) return refuse(not_found_message(args.path, before, args.old_text));
    if (positions.length > 1 && !args.replace_all) {
      const lines = positions.slice(0, 10).map((position) => line_of(before, position));
      const more = positions.length > 10 ? ', …' : '';
      return refuse(
        `old_text occurs ${positions.length} times in '${args.path}' (lines ${lines.join(', ')}${more}). ` +
          'Include more surrounding text to pick one, or set replace_all to replace them all. Nothing was written.',
      );
    }

    const after = splice_all(before, old_text, new_text, positions);
    // loaded on first use (and before writing, so a failure leaves the file as it was)
    const { createTwoFilesPatch } = await import('diff');
    context.signal.throwIfAborted();
    await write_file_atomic(context.work_dir, args.path, after, { signal: context.signal });
    const name = guarded.relative;
    const diff = createTwoFilesPatch(
      `a/${name}`,
      `b/${name}`,
      before,
      after,
      undefined,
      undefined,
      {
        context: 3,
      },
    );
    const body = diff.replace(/^=+\n/, '');
    const count = positions.length;
    return `Edited ${name}: ${count} replacement${count === 1 ? '' : 's'}.\n${body}`;
  },
});

function find_all(text: string, needle: string): number[] {
  const positions: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    positions.push(at);
  }
  return positions;
}

function splice_all(
  text: string,
  needle: string,
  replacement: string,
  positions: number[],
): string {
  // plain slicing: String.replace would interpret `$&` and friends in new_text
  let result = '';
  let from = 0;
  for (const position of positions) {
    result += text.slice(from, position) + replacement;
    from = position + needle.length;
  }
  return result + text.slice(from);
}

function line_of(text: string, position: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < position; at = text.indexOf('\n', at + 1)) {
    line += 1;
  }
  return line;
}

function not_found_message(path: string, text: string, old_text: string): string {
  const base = `old_text was not found in '${path}'. It must match the file exactly, whitespace and indentation included; read_file shows the current text.`;
  // a hint: lines that match the first line of old_text once whitespace is ignored
  const wanted = old_text.split('\n').find((line) => line.trim() !== '');
  if (wanted === undefined) return `${base} Nothing was written.`;
  const squeeze = (line: string) => line.replace(/\s+/g, ' ').trim();
  const target = squeeze(wanted);
  const hits: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (hits.length < 5 && squeeze(line).includes(target)) hits.push(index + 1);
  });
  const hint =
    hits.length > 0
      ? ` Its first line matches, ignoring whitespace, at line${hits.length > 1 ? 's' : ''} ${hits.join(', ')}.`
      : '';
  return `${base}${hint} Nothing was written.`;
}

import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { denied_in_work_dir, refuse_denied } from './denied.js';
import { apply_exact_edit, unified_diff } from './exact_edit.js';
import { preview_file_change } from './file_preview.js';
import { require_in_work_dir } from './guard.js';
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
export const edit_file_tool: Tool<EditFileArgs> = {
  name: 'edit_file',
  description:
    'Replace exact text in a file. old_text must match the file exactly (whitespace included) and ' +
    'occur exactly once, unless replace_all is true. Returns a unified diff of the change.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    if (denied_in_work_dir(context).length > 0) {
      const target = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
      refuse_denied(context, target.path, args.path);
    }
    const planned = await plan_edit(args, context.work_dir);
    if (!planned.ok) return { ok: false, output: planned.message };
    const { before, after, count, relative } = planned;
    // made before writing, so a failure to load the diff module leaves the file as it was
    const body = await unified_diff(relative, before, after);
    context.signal.throwIfAborted();
    await write_file_atomic(context.work_dir, args.path, after, { signal: context.signal });
    return `Edited ${relative}: ${count} replacement${count === 1 ? '' : 's'}.\n${body}`;
  },
  async preview(args, context) {
    if (denied_in_work_dir(context).length > 0) {
      const target = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
      refuse_denied(context, target.path, args.path);
    }
    const planned = await plan_edit(args, context.work_dir);
    if (!planned.ok) return undefined;
    return preview_file_change(planned.relative, planned.before, planned.after);
  },
};

type PlannedEdit =
  | { ok: true; before: string; after: string; count: number; relative: string }
  | { ok: false; message: string };

/** Reads the file and applies the edit in memory: what `execute` would write, or why not. */
async function plan_edit(args: EditFileArgs, work_dir: string): Promise<PlannedEdit> {
  const refuse = (message: string): PlannedEdit => ({ ok: false, message });
  if (args.old_text === '') return refuse('old_text is empty; to create a file use write_file.');
  if (args.old_text === args.new_text) return refuse('old_text and new_text are the same.');
  // refuse a protected path before reading anything
  await require_in_work_dir(work_dir, args.path, { for_write: true });
  const { handle, size, guarded } = await open_in_work_dir(work_dir, args.path);
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
  const edit = apply_exact_edit(before, args);
  if (!edit.ok) return refuse(edit.message);
  return { ok: true, before, after: edit.after, count: edit.count, relative: guarded.relative };
}

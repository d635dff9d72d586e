import type { Tool, ToolOutput, ToolPreview } from '@lich/core';
import { z } from 'zod';
import { denied_in_work_dir, refuse_denied } from './denied.js';
import { preview_file_change } from './file_preview.js';
import { require_in_work_dir } from './guard.js';
import { open_in_work_dir, write_file_atomic } from './safe_fs.js';
import { BINARY_SAMPLE_BYTES, looks_binary } from './text.js';

/** Above this size an existing file is shown as replaced, without a diff. */
const PREVIEW_MAX_BYTES = 1024 * 1024;

function replaced_preview(path: string, content: string, size: number): ToolPreview {
  return {
    kind: 'text',
    path,
    text: `replaces ${path} (${size} bytes) with ${Buffer.byteLength(content)} bytes`,
    summary: 'replaces a large or binary file',
  };
}

const parameters = z
  .object({
    path: z.string().describe('Path of the file, relative to the work dir.'),
    content: z.string().describe('The whole new content of the file.'),
  })
  .strict();

/** Arguments of `write_file`. */
export type WriteFileArgs = z.infer<typeof parameters>;

/**
 * `write_file { path, content }`: creates or replaces a whole file.
 *
 * Contract: atomic (a temp file in the same folder, then a rename; see `write_file_atomic`);
 * creates missing parent folders; refuses paths the guard refuses for writing (outside the work
 * dir, under `.git/` or `.lich/`) and a folder as target, writing nothing; says how many bytes and
 * lines it wrote and whether the file was created or replaced.
 */
export const write_file_tool: Tool<WriteFileArgs> = {
  name: 'write_file',
  description:
    'Create a file, or replace the whole content of an existing one. Parent folders are created. ' +
    'To change part of a file, prefer edit_file.',
  parameters,
  async execute(args, context): Promise<ToolOutput> {
    if (denied_in_work_dir(context).length > 0) {
      const target = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
      refuse_denied(context, target.path, args.path);
    }
    const result = await write_file_atomic(context.work_dir, args.path, args.content, {
      signal: context.signal,
    });
    const lines = count_lines(args.content);
    const verb = result.created ? 'Created' : 'Replaced';
    return `${verb} ${result.relative} (${result.bytes} bytes, ${lines} line${lines === 1 ? '' : 's'}).`;
  },
  async preview(args, context) {
    const guarded = await require_in_work_dir(context.work_dir, args.path, { for_write: true });
    refuse_denied(context, guarded.path, args.path);
    if (!guarded.exists) return preview_file_change(guarded.relative, null, args.content);
    const { handle, size } = await open_in_work_dir(context.work_dir, args.path);
    let before: string;
    try {
      // a big or binary file is shown as replaced, without a diff
      if (size > PREVIEW_MAX_BYTES) return replaced_preview(guarded.relative, args.content, size);
      const bytes = await handle.readFile();
      if (looks_binary(bytes.subarray(0, BINARY_SAMPLE_BYTES))) {
        return replaced_preview(guarded.relative, args.content, size);
      }
      before = bytes.toString('utf8');
    } finally {
      await handle.close().catch(() => {});
    }
    return preview_file_change(guarded.relative, before, args.content);
  },
};

function count_lines(text: string): number {
  if (text === '') return 0;
  let count = 1;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    count += 1;
  }
  return text.endsWith('\n') ? count - 1 : count;
}

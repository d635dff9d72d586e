import type { Tool, ToolOutput } from '@lich/core';
import { z } from 'zod';
import { write_file_atomic } from './safe_fs.js';

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
    const result = await write_file_atomic(context.work_dir, args.path, args.content, {
      signal: context.signal,
    });
    const lines = count_lines(args.content);
    const verb = result.created ? 'Created' : 'Replaced';
    return `${verb} ${result.relative} (${result.bytes} bytes, ${lines} line${lines === 1 ? '' : 's'}).`;
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

import { isAbsolute, resolve } from 'node:path';

/**
 * A Lich tool call's arguments as Claude Code's hooks read them, with Lich's own fields kept:
 * `path` also as an absolute `file_path`, `old_text`/`new_text` also as `old_string`/`new_string`.
 * A hook written for `tool_input.command` or `tool_input.file_path` works unchanged. Pure.
 */
export function claude_tool_input(args: unknown, work_dir: string): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {};
  const input: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  if (typeof input.path === 'string') {
    input.file_path = isAbsolute(input.path) ? input.path : resolve(work_dir, input.path);
  }
  if (typeof input.old_text === 'string') input.old_string = input.old_text;
  if (typeof input.new_text === 'string') input.new_string = input.new_text;
  return input;
}

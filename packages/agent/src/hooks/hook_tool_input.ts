import { isAbsolute, relative, resolve } from 'node:path';

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

/**
 * A hook's `updatedInput` back as the Lich tool's arguments: the fields the call had, each taken
 * from the hook's input under its own name or Claude Code's (`file_path`, made relative to the work
 * dir; `old_string`, `new_string`). Fields the call did not have are left out, so the tool's
 * schema still holds. Pure.
 */
export function lich_tool_args(
  args: unknown,
  updated: Record<string, unknown>,
  work_dir: string,
): Record<string, unknown> {
  const original =
    typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const result: Record<string, unknown> = {};
  const claude_names: Record<string, string> = {
    path: 'file_path',
    old_text: 'old_string',
    new_text: 'new_string',
  };
  for (const [key, value] of Object.entries(original)) {
    const claude_name = claude_names[key];
    if (key in updated && updated[key] !== value) result[key] = updated[key];
    else if (claude_name !== undefined && typeof updated[claude_name] === 'string') {
      const given = updated[claude_name] as string;
      result[key] = key === 'path' && isAbsolute(given) ? relative(work_dir, given) || '.' : given;
    } else result[key] = key in updated ? updated[key] : value;
  }
  return result;
}

import type { ToolPreview } from '@lich/core';
import { unified_diff } from './exact_edit.js';

/** A new file's preview shows this many lines at most. */
export const PREVIEW_HEAD_LINES = 20;
/** Old and new texts ride along with a preview (for an editor's diff view) up to this size. */
const WHOLE_TEXT_LIMIT = 256 * 1024;

function line_count(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * What writing `after` over `before` (null: the file does not exist yet) at `path` would do, for
 * a person asked to approve it: the unified diff of a change, or the first lines and size of a
 * new file. Pure but for loading the diff module.
 */
export async function preview_file_change(
  path: string,
  before: string | null,
  after: string,
): Promise<ToolPreview> {
  const small = after.length <= WHOLE_TEXT_LIMIT && (before?.length ?? 0) <= WHOLE_TEXT_LIMIT;
  const texts = small ? { ...(before === null ? {} : { old_text: before }), new_text: after } : {};
  if (before === null) {
    const lines = after.split('\n');
    const total = line_count(after);
    const head = lines.slice(0, PREVIEW_HEAD_LINES).join('\n');
    const more = total > PREVIEW_HEAD_LINES ? `\n… ${total - PREVIEW_HEAD_LINES} more lines` : '';
    return {
      kind: 'new_file',
      path,
      text: `${head}${more}`,
      summary: `new file, ${plural(Buffer.byteLength(after), 'byte')}, ${plural(total, 'line')}`,
      ...texts,
    };
  }
  const diff = await unified_diff(path, before, after);
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return { kind: 'diff', path, text: diff, summary: `+${added} −${removed}`, ...texts };
}

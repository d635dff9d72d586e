/** The text edit behind `edit_file`, shared by every surface that edits text the same way. */

/** What `apply_exact_edit` is asked to do: `edit_file`'s arguments. */
export interface ExactEdit {
  /** How the file is named in messages. */
  path: string;
  old_text: string;
  new_text: string;
  replace_all?: boolean;
}

/** The edited text and how many replacements were made, or why nothing was changed. */
export type ExactEditResult =
  | { ok: true; after: string; count: number }
  | { ok: false; message: string };

/**
 * Replaces `old_text` in `before`: the one occurrence, or every one with `replace_all`. When the
 * text uses CRLF line ends and `old_text` does not, both texts are matched and put in with CRLF.
 *
 * Contract: pure, never throws. Refused (with a message for the model that ends "Nothing was
 * written."): an empty `old_text`, `old_text` equal to `new_text`, no match (with the lines whose
 * first line matches ignoring whitespace), several matches without `replace_all` (with their line
 * numbers).
 */
export function apply_exact_edit(before: string, edit: ExactEdit): ExactEditResult {
  const refuse = (message: string): ExactEditResult => ({ ok: false, message });
  if (edit.old_text === '') return refuse('old_text is empty; to create a file use write_file.');
  if (edit.old_text === edit.new_text) return refuse('old_text and new_text are the same.');
  let old_text = edit.old_text;
  let new_text = edit.new_text;
  let positions = find_all(before, old_text);
  if (positions.length === 0 && before.includes('\r\n') && !old_text.includes('\r')) {
    old_text = old_text.replace(/\n/g, '\r\n');
    new_text = new_text.replace(/\n/g, '\r\n');
    positions = find_all(before, old_text);
  }
  if (positions.length === 0) return refuse(not_found_message(edit.path, before, edit.old_text));
  if (positions.length > 1 && edit.replace_all !== true) {
    const lines = positions.slice(0, 10).map((position) => line_of(before, position));
    const more = positions.length > 10 ? ', …' : '';
    return refuse(
      `old_text occurs ${positions.length} times in '${edit.path}' (lines ${lines.join(', ')}${more}). ` +
        'Include more surrounding text to pick one, or set replace_all to replace them all. Nothing was written.',
    );
  }
  return {
    ok: true,
    after: splice_all(before, old_text, new_text, positions),
    count: positions.length,
  };
}

/**
 * A unified diff of `before` → `after` with 3 lines of context, headed `a/<name>` / `b/<name>`.
 * Loads the diff module on first use.
 */
export async function unified_diff(name: string, before: string, after: string): Promise<string> {
  const { createTwoFilesPatch } = await import('diff');
  const diff = createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, {
    context: 3,
  });
  return diff.replace(/^=+\n/, '');
}

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

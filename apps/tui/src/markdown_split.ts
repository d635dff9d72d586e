/**
 * Where streamed markdown can be cut so that the part before the cut renders the same on its own
 * as it would inside the whole answer. The TUI moves that part into `<Static>` (written once to
 * the terminal's scrollback) and keeps re-rendering only the rest.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The index at which `text` can be split, or 0 when there is none. A safe point is the start of
 * a line that follows a blank line or a closing fence, outside any code fence, whose own content has begun and is
 * not indented (an indented line may continue a list item or be indented code). The line still
 * being written counts once its first character is there.
 */
export function find_safe_split(text: string): number {
  let fence: { char: string; length: number } | null = null;
  let best = 0;
  let previous_blank = false;
  let after_fence = false;
  let start = 0;
  const complete = text.lastIndexOf('\n');
  while (start <= complete) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end);
    const blank = line.trim() === '';
    const opener = FENCE.exec(line)?.[1];
    if (fence === null) {
      if ((previous_blank || after_fence) && !blank && !/^\s/.test(line)) best = start;
      if (opener !== undefined) fence = { char: opener[0]!, length: opener.length };
      after_fence = false;
    } else if (
      opener !== undefined &&
      opener[0] === fence.char &&
      opener.length >= fence.length &&
      line.trim() === opener
    ) {
      fence = null;
      after_fence = true;
      previous_blank = false;
      start = end + 1;
      continue;
    }
    previous_blank = blank && fence === null;
    start = end + 1;
  }
  // The line being written can start the next piece once its first character is known.
  const tail = text.slice(complete + 1);
  if (fence === null && (previous_blank || after_fence) && tail !== '' && !/^\s/.test(tail)) {
    best = complete + 1;
  }
  return best;
}

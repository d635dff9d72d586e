/**
 * `@path` in a prompt attaches that file (C31), as Claude Code and gemini-cli do: the file is read
 * through the `read_file` tool (its path guard, its masked paths, its line numbers and limits) and
 * added after the text, so the model sees it without a tool call of its own.
 */
import type { ImagePart, ToolResult } from '@lich/core';

/** How many files one prompt attaches at most. */
export const MAX_MENTIONED_FILES = 10;

/** What `attach_file_mentions` made of a prompt. */
export interface AttachedMentions {
  /** The prompt, with each attached file after it in a `<file path="…">` block. */
  text: string;
  /** The paths attached, in the order named. */
  attached: string[];
  /** The pictures among them (`@shot.png`), to send with the text as image parts. */
  images: ImagePart[];
  /** Mentions of files that exist but could not be attached, with why (one line each). */
  skipped: { path: string; why: string }[];
}

/** The `@path` words of `text`: no email addresses, trailing punctuation left out, each once. */
export function file_mentions(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?<![\w@])@((?:[^\s@"'`\\]|\\ )+)/g)) {
    const path = (match[1] as string).replace(/[.,;:!?)\]]+$/, '').replaceAll('\\ ', ' ');
    if (path !== '' && !found.includes(path)) found.push(path);
  }
  return found;
}

/** The start of the first attachment block in a prompt: what a surface shows stops there. */
export const ATTACHMENT_MARK = '\n\n<file path="';

/**
 * Attaches the files `text` mentions as `@path`. A word that names no file (a handle, a package
 * scope) is left alone; a file `read_file` refuses (outside the work dir, masked, binary, a
 * folder) is reported in `skipped` and not attached. A picture (`@shot.png`) comes back in
 * `images`, to go with the text as an image part.
 *
 * Contract: never throws; `exists` and `read` are the caller's (`read` is `read_file`).
 */
export async function attach_file_mentions(
  text: string,
  exists: (path: string) => boolean,
  read: (path: string) => Promise<ToolResult>,
): Promise<AttachedMentions> {
  const attached: string[] = [];
  const images: ImagePart[] = [];
  const skipped: { path: string; why: string }[] = [];
  const blocks: string[] = [];
  for (const path of file_mentions(text)) {
    if (!exists(path)) continue;
    if (attached.length >= MAX_MENTIONED_FILES) {
      skipped.push({ path, why: `at most ${MAX_MENTIONED_FILES} files are attached at once` });
      continue;
    }
    const result = await read(path).catch(
      (error: unknown): ToolResult => ({
        ok: false,
        output: error instanceof Error ? error.message : String(error),
        duration_ms: 0,
      }),
    );
    if (!result.ok) {
      skipped.push({ path, why: result.output.split('\n')[0] ?? 'it could not be read' });
      continue;
    }
    attached.push(path);
    if (result.images !== undefined && result.images.length > 0) {
      // a picture goes as itself; the text keeps the @path that names it
      images.push(...result.images);
      continue;
    }
    blocks.push(`<file path="${path.replaceAll('"', '&quot;')}">\n${result.output}\n</file>`);
  }
  if (blocks.length === 0) return { text, attached, images, skipped };
  return { text: `${text}\n\n${blocks.join('\n\n')}`, attached, images, skipped };
}

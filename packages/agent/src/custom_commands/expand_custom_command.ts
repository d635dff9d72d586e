import type { CustomCommand } from './custom_command_types.js';

/** What expanding a command needs from its surroundings. */
export interface ExpandIo {
  /** Runs one shell line of the command and resolves with the text to put in its place. */
  run_shell(command_line: string): Promise<string>;
  /** The text of a file the command names (`@path`, `@{path}`), or undefined when it cannot be read. */
  read_file(path: string): Promise<string | undefined>;
}

/** `text` as one bash word. */
export function shell_quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Splits arguments as a shell would for `$1…`: on blanks, quotes kept together. */
export function split_arguments(args: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of args.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? '');
  return words;
}

async function replace_async(
  text: string,
  pattern: RegExp,
  replace: (match: RegExpExecArray) => Promise<string>,
): Promise<string> {
  let result = '';
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    result += text.slice(last, match.index) + (await replace(match as RegExpExecArray));
    last = (match.index ?? 0) + match[0].length;
  }
  return result + text.slice(last);
}

function file_block(path: string, content: string): string {
  return `\n\n<file path="${path}">\n${content.replace(/\n$/, '')}\n</file>\n`;
}

/** Claude Code's markdown: !`cmd` lines, `$ARGUMENTS`, `$1`…`$9`, `@file`. */
async function expand_markdown(
  command: CustomCommand,
  args: string,
  io: ExpandIo,
): Promise<string> {
  const words = split_arguments(args);
  const uses_arguments = /\$ARGUMENTS|\$[1-9]/.test(command.template);
  const substitute = (text: string, quote: (value: string) => string) =>
    text
      .replace(/\$ARGUMENTS/g, () => quote(args))
      .replace(/\$([1-9])/g, (_, index: string) => quote(words[Number(index) - 1] ?? ''));
  // shell lines first, with the arguments quoted into them, so an argument is never code
  let text = await replace_async(command.template, /!`([^`\n]+)`/g, (match) =>
    io.run_shell(substitute(match[1] as string, shell_quote)),
  );
  text = substitute(text, (value) => value);
  const files: string[] = [];
  text = await replace_async(text, /(^|\s)@([\w./-][^\s`'"),;]*)/g, async (match) => {
    const written = match[2] as string;
    // a sentence's full stop is not part of the path
    const path = written.replace(/[.:]$/, '');
    const content = await io.read_file(path);
    if (content !== undefined) files.push(file_block(path, content));
    return `${match[1]}${path}${written.slice(path.length)}`;
  });
  if (!uses_arguments && args !== '') text = `${text}\n\nARGUMENTS: ${args}`;
  return `${text}${files.join('')}`.trim();
}

/** The end of a `!{…}` or `@{…}` that starts at `open` (the brace), braces balanced; -1 if none. */
function closing_brace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth += 1;
    if (text[index] === '}') {
      depth -= 1;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** Gemini CLI's TOML prompt: `!{cmd}`, `@{path}`, `{{args}}`. */
async function expand_toml(command: CustomCommand, args: string, io: ExpandIo): Promise<string> {
  const template = command.template;
  let result = '';
  let index = 0;
  while (index < template.length) {
    const two = template.slice(index, index + 2);
    if ((two === '!{' || two === '@{') && closing_brace(template, index + 1) !== -1) {
      const end = closing_brace(template, index + 1);
      const inner = template.slice(index + 2, end).trim();
      if (two === '!{') {
        // inside a shell line the arguments are quoted, as Gemini CLI does
        result += await io.run_shell(inner.replace(/\{\{args\}\}/g, () => shell_quote(args)));
      } else {
        const content = await io.read_file(inner);
        result += content ?? `[${inner} could not be read]`;
      }
      index = end + 1;
      continue;
    }
    if (template.startsWith('{{args}}', index)) {
      result += args;
      index += '{{args}}'.length;
      continue;
    }
    result += template[index];
    index += 1;
  }
  if (!template.includes('{{args}}') && args !== '') {
    result = `${result}\n\n/${command.name} ${args}`;
  }
  return result.trim();
}

/**
 * The prompt a custom command sends for `args`, in its own dialect (see `CustomCommand.dialect`).
 * Shell lines run through `io.run_shell` (which decides whether they may), files are read through
 * `io.read_file`; arguments put into a shell line are quoted, so they are never run as code.
 */
export function expand_custom_command(
  command: CustomCommand,
  args: string,
  io: ExpandIo,
): Promise<string> {
  return command.dialect === 'toml'
    ? expand_toml(command, args, io)
    : expand_markdown(command, args, io);
}

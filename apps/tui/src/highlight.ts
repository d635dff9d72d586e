/**
 * A small code highlighter for fenced blocks: comments, strings, numbers and keywords of the
 * languages a coding agent shows most, and `diff`. It works line by line (a block comment or a
 * string spanning lines is coloured per line), which is enough to make code readable at a glance
 * and costs nothing to load.
 */
import type { Palette } from './palette.js';

const C_LIKE = [
  'break case catch class const continue default do else enum export extends false finally for',
  'function if import in instanceof interface let new null return static super switch this throw',
  'true try type typeof undefined var void while yield async await of from as implements package',
  'private protected public readonly abstract declare namespace struct impl fn pub mut match use',
  'mod trait where go func defer chan map range select int char float double long bool string',
].join(' ');
const PYTHON =
  'and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self';
const SHELL =
  'if then else elif fi for while until do done case esac in function return export local echo cd set unset exit';

const KEYWORDS: Record<string, Set<string>> = {
  c_like: new Set(C_LIKE.split(' ')),
  python: new Set(PYTHON.split(' ')),
  shell: new Set(SHELL.split(' ')),
};

/** Which keyword set and comment marks a fence's language uses. */
function family(language: string): { keywords: Set<string>; hash_comments: boolean } | null {
  const name = language.toLowerCase();
  if (['py', 'python', 'python3'].includes(name)) {
    return { keywords: KEYWORDS.python!, hash_comments: true };
  }
  if (['sh', 'bash', 'zsh', 'shell', 'console', 'fish'].includes(name)) {
    return { keywords: KEYWORDS.shell!, hash_comments: true };
  }
  if (['yaml', 'yml', 'toml', 'ini', 'rb', 'ruby', 'dockerfile', 'make'].includes(name)) {
    return { keywords: new Set(), hash_comments: true };
  }
  if (name === '' || name === 'text' || name === 'txt' || name === 'plain') return null;
  return { keywords: KEYWORDS.c_like!, hash_comments: false };
}

const TOKEN =
  /(\/\/.*$|\/\*.*?(?:\*\/|$)|#.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b|\b0x[\da-f]+\b)|([A-Za-z_$][\w$]*)/gi;

function highlight_line(
  line: string,
  spec: { keywords: Set<string>; hash_comments: boolean },
  palette: Palette,
): string {
  let out = '';
  let from = 0;
  for (const match of line.matchAll(TOKEN)) {
    const [text, comment, string, number, word] = match;
    const at = match.index;
    if (comment?.startsWith('#') && !spec.hash_comments) {
      // `#` is not a comment here (a CSS colour, a private field): leave it and what follows
      continue;
    }
    out += line.slice(from, at);
    if (comment !== undefined) out += palette.gray(text);
    else if (string !== undefined) out += palette.green(text);
    else if (number !== undefined) out += palette.yellow(text);
    else if (word !== undefined && spec.keywords.has(word)) out += palette.magenta(text);
    else out += text;
    from = at + text.length;
  }
  return out + line.slice(from);
}

function highlight_diff_line(line: string, palette: Palette): string {
  if (line.startsWith('+++') || line.startsWith('---')) return palette.bold(line);
  if (line.startsWith('+')) return palette.green(line);
  if (line.startsWith('-')) return palette.red(line);
  if (line.startsWith('@@')) return palette.cyan(line);
  return line;
}

/**
 * The lines of `code` coloured for `language` (a fence's info word). Unknown or empty languages
 * are coloured as C-like code; `text` is left plain. With a palette without colour the lines come
 * back unchanged.
 */
export function highlight_code(code: string, language: string, palette: Palette): string[] {
  const lines = code.split('\n');
  if (!palette.color) return lines;
  if (['diff', 'patch'].includes(language.toLowerCase())) {
    return lines.map((line) => highlight_diff_line(line, palette));
  }
  const spec = family(language);
  if (spec === null) return lines;
  return lines.map((line) => highlight_line(line, spec, palette));
}

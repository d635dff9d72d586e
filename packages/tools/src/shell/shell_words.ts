/**
 * A small bash tokenizer, enough to tell what a command line would run: words with their quotes
 * removed, control and redirection operators, and the command texts nested in `$(…)`, backticks
 * and process substitutions. It does not expand anything except what matters for safety checks:
 * the home directory (`~`, `$HOME`, `${HOME}` outside single quotes) becomes `HOME_MARK`, a plain
 * variable (`$x`, `${x}`) is marked with its name (`VARIABLE_OPEN`…`VARIABLE_CLOSE`) so a checker
 * can put in a value set earlier on the line, any other expansion becomes `UNKNOWN_MARK`.
 */

import { decode_ansi_c } from './ansi_c.js';
import {
  BRACE_CLOSE,
  BRACE_COMMA,
  BRACE_OPEN,
  brace_expand,
  plain_braces,
} from './brace_expand.js';

/** Stands for the home directory in a word. */
export const HOME_MARK = '\u0000HOME\u0000';
/** Stands for a value only known when the command runs (`$(…)`, `$1`, `${VAR:-x}`). */
export const UNKNOWN_MARK = '\u0001';
/** Opens the name of a plain variable (`$VAR`, `${VAR}`) in a word; `VARIABLE_CLOSE` ends it. */
export const VARIABLE_OPEN = '\u0002';
/** Ends a variable's name opened by `VARIABLE_OPEN` or `SPLIT_VARIABLE_OPEN`. */
export const VARIABLE_CLOSE = '\u0003';
/**
 * Opens the name of a plain variable outside double quotes (`$VAR` in `rm $VAR`): bash splits its
 * value into words on `IFS`. `VARIABLE_CLOSE` ends it.
 */
export const SPLIT_VARIABLE_OPEN = '\u0004';

/**
 * The mark a plain variable leaves in a word: the home mark for `HOME`, else its name marked,
 * as split into words (`quoted` false) or not.
 */
function variable_mark(name: string, quoted: boolean): string {
  if (name === 'HOME') return HOME_MARK;
  return `${quoted ? VARIABLE_OPEN : SPLIT_VARIABLE_OPEN}${name}${VARIABLE_CLOSE}`;
}

/**
 * A word (quotes removed, braces expanded: one token per word) or an operator (`;`, `&&`, `|`,
 * `>`, `(`…). A newline is `;`. The word after `<<` carries the here-doc's `body`.
 */
export type ShellToken =
  | { kind: 'word'; value: string; body?: string }
  | { kind: 'operator'; value: string };

/** What `parse_shell` found. */
export interface ShellParse {
  tokens: ShellToken[];
  /** Command texts that run inside this one: `$(…)`, `` `…` ``, `<(…)`, `>(…)`. */
  substitutions: string[];
}

// longest first, so `&&` wins over `&`
const OPERATORS = [
  ';;&', '<<<', '<<-', '&>>',
  ';;', ';&', '&&', '||', '|&', '<<', '<&', '<>', '>>', '>&', '>|', '&>',
  ';', '&', '|', '<', '>', '(', ')',
]; // biome-ignore format: a table

const SEPARATOR_ALIASES: { [key: string]: string } = { ';;&': ';', ';;': ';', ';&': ';' };
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;

/** Index of the `)` closing the group opened just before `start`, or the text's end. */
function find_closing_paren(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') i++;
    else if (char === "'") i = skip_to(text, i + 1, "'");
    else if (char === '"') i = skip_double(text, i + 1);
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return text.length;
}

function skip_to(text: string, start: number, close: string): number {
  const end = text.indexOf(close, start);
  return end === -1 ? text.length : end;
}

function skip_double(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

function find_backtick(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '`') return i;
  }
  return text.length;
}

function find_closing_brace(text: string, start: number): number {
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return text.length;
}

/**
 * Splits a bash command line into tokens.
 *
 * Contract: pure, never throws, linear in the input; an unterminated quote or group runs to the
 * end of the text (bash would refuse such a line, so reading too much is the safe side). Here-doc
 * bodies are data and are skipped.
 */
export function parse_shell(text: string): ShellParse {
  const tokens: ShellToken[] = [];
  const substitutions: string[] = [];
  const heredocs: Heredoc[] = [];
  let word = '';
  let in_word = false;
  let word_quoted = false;

  const finish_word = () => {
    if (!in_word) return;
    const previous = tokens[tokens.length - 1];
    if (previous?.kind === 'operator' && (previous.value === '<<' || previous.value === '<<-')) {
      const pending = heredocs.find((heredoc) => heredoc.delimiter === undefined);
      const token: ShellToken & { kind: 'word' } = { kind: 'word', value: plain_braces(word) };
      if (pending) {
        pending.delimiter = token.value;
        pending.token = token;
      }
      tokens.push(token);
    } else {
      for (const value of brace_expand(word)) tokens.push({ kind: 'word', value });
    }
    word = '';
    in_word = false;
    word_quoted = false;
  };
  const append = (value: string) => {
    word += value;
    in_word = true;
  };

  /**
   * Reads `$…` at `i` (the `$`), appends what it stands for, returns the last index used.
   * `quoted`: inside double quotes, where a variable's value is not split into words.
   */
  const read_dollar = (i: number, quoted: boolean): number => {
    const next = text[i + 1];
    if (next === '(') {
      const end = find_closing_paren(text, i + 2);
      substitutions.push(text.slice(i + 2, end));
      append(UNKNOWN_MARK);
      return end;
    }
    if (next === '{') {
      const end = find_closing_brace(text, i + 2);
      const inside = text.slice(i + 2, end);
      append(
        /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#])$/.test(inside)
          ? variable_mark(inside, quoted)
          : UNKNOWN_MARK,
      );
      return end;
    }
    if (next !== undefined && NAME_START.test(next)) {
      let end = i + 1;
      while (end + 1 < text.length && NAME_CHAR.test(text[end + 1]!)) end++;
      append(variable_mark(text.slice(i + 1, end + 1), quoted));
      return end;
    }
    if (next !== undefined && /[1-9@*#]/.test(next)) {
      // positional parameters: known where `set --` or a function call on the line gave them
      append(variable_mark(next, quoted));
      return i + 1;
    }
    if (next !== undefined && /[0?$!-]/.test(next)) {
      append(UNKNOWN_MARK);
      return i + 1;
    }
    append('$');
    return i;
  };

  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '\n') {
      finish_word();
      tokens.push({ kind: 'operator', value: ';' });
      i = skip_heredoc_bodies(text, i + 1, heredocs) - 1;
      continue;
    }
    if (char === ' ' || char === '\t') {
      finish_word();
      continue;
    }
    if (char === '#' && !in_word) {
      const end = text.indexOf('\n', i);
      i = (end === -1 ? text.length : end) - 1;
      continue;
    }
    if (char === '\\') {
      if (text[i + 1] === '\n') i++;
      else if (i + 1 < text.length) {
        append(text[i + 1]!);
        word_quoted = true;
        i++;
      }
      continue;
    }
    if (char === "'") {
      const end = skip_to(text, i + 1, "'");
      append(text.slice(i + 1, end));
      word_quoted = true;
      i = end;
      continue;
    }
    if (char === '$' && text[i + 1] === "'") {
      const end = find_ansi_quote_end(text, i + 2);
      append(decode_ansi_c(text.slice(i + 2, end)));
      word_quoted = true;
      i = end;
      continue;
    }
    if (char === '"') {
      word_quoted = true;
      in_word = true;
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const inner = text[j]!;
        if (inner === '\\' && /[$`"\\\n]/.test(text[j + 1] ?? '')) {
          if (text[j + 1] !== '\n') append(text[j + 1]!);
          j++;
        } else if (inner === '$') j = read_dollar(j, true);
        else if (inner === '`') {
          const end = find_backtick(text, j + 1);
          substitutions.push(text.slice(j + 1, end).replace(/\\`/g, '`'));
          append(UNKNOWN_MARK);
          j = end;
        } else append(inner);
      }
      i = j;
      continue;
    }
    if (char === '$') {
      i = read_dollar(i, false);
      continue;
    }
    if (char === '`') {
      const end = find_backtick(text, i + 1);
      substitutions.push(text.slice(i + 1, end).replace(/\\`/g, '`'));
      append(UNKNOWN_MARK);
      i = end;
      continue;
    }
    if ((char === '<' || char === '>') && text[i + 1] === '(') {
      const end = find_closing_paren(text, i + 2);
      substitutions.push(text.slice(i + 2, end));
      append(UNKNOWN_MARK);
      i = end;
      continue;
    }
    if (char === '~' && !in_word && /^(?:[/\s;&|)]|$)/.test(text[i + 1] ?? '')) {
      append(HOME_MARK);
      continue;
    }
    const operator = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    if (operator) {
      // `2>` and `10<`: a run of digits right before a redirection names a descriptor
      const is_redirect = operator[0] === '<' || operator[0] === '>';
      if (is_redirect && in_word && !word_quoted && /^\d+$/.test(word)) {
        word = '';
        in_word = false;
      }
      finish_word();
      tokens.push({ kind: 'operator', value: SEPARATOR_ALIASES[operator] ?? operator });
      if (operator === '<<' || operator === '<<-') {
        heredocs.push({ strip_tabs: operator === '<<-' });
      }
      i += operator.length - 1;
      continue;
    }
    // unquoted braces and commas may expand (`{a,b}`): marked, expanded when the word ends
    append(
      char === '{' ? BRACE_OPEN : char === ',' ? BRACE_COMMA : char === '}' ? BRACE_CLOSE : char,
    );
  }
  finish_word();
  return { tokens, substitutions };
}

function find_ansi_quote_end(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === "'") return i;
  }
  return text.length;
}

/** A here-doc opened on the current line: its delimiter and the token its body goes to. */
interface Heredoc {
  delimiter?: string;
  strip_tabs: boolean;
  token?: { kind: 'word'; value: string; body?: string };
}

/**
 * Skips the bodies of the here-docs opened on the line that just ended, giving each body to its
 * delimiter's token; returns the new index.
 */
function skip_heredoc_bodies(text: string, start: number, heredocs: Heredoc[]): number {
  let position = start;
  while (heredocs.length > 0) {
    const heredoc = heredocs.shift()!;
    if (heredoc.delimiter === undefined) continue;
    const lines: string[] = [];
    for (;;) {
      if (position >= text.length) break;
      const end = text.indexOf('\n', position);
      const line_end = end === -1 ? text.length : end;
      let line = text.slice(position, line_end);
      if (heredoc.strip_tabs) line = line.replace(/^\t+/, '');
      position = line_end + 1;
      if (line === heredoc.delimiter) break;
      lines.push(line);
    }
    if (heredoc.token) heredoc.token.body = lines.join('\n');
    if (position >= text.length) return text.length;
  }
  return Math.min(position, text.length);
}

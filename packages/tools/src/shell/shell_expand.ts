/**
 * What a line of bash has set up by the time each simple command runs, as far as a safety check
 * can know it without running anything: the variables assigned earlier on the line (`x=/`,
 * `export x=/`, `for x in a /`), the folder changed to (`cd /`, `pushd ~`), and the commands
 * that `xargs` and `find` run for their input (`echo / | xargs rm -rf`, `find / -exec rm {} \;`).
 * Anything it cannot know stays `UNKNOWN_MARK`; it never guesses a value.
 */
import { decode_ansi_c } from './ansi_c.js';
import {
  basename,
  KEYWORDS,
  reads_script_from_stdin,
  type SimpleCommand,
  strip_prefix,
} from './shell_commands.js';
import {
  HOME_MARK,
  SPLIT_VARIABLE_OPEN,
  UNKNOWN_MARK,
  VARIABLE_CLOSE,
  VARIABLE_OPEN,
} from './shell_words.js';

/** What the line has set so far. */
export interface ShellState {
  /** The folder commands run in (absolute, or starting with `HOME_MARK`); `undefined`: unknown. */
  cwd?: string;
  /** Each variable set on the line, with every value it may hold at this point. */
  vars: Map<string, string[]>;
}

/** The most alternatives followed for one word or one command (the rest are not checked). */
const MAX_ALTERNATIVES = 32;
const VARIABLE = new RegExp(
  `([${VARIABLE_OPEN}${SPLIT_VARIABLE_OPEN}])([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#])${VARIABLE_CLOSE}`,
  'g',
);
/** Where a word splits into two, from an unquoted variable's value (`IFS`), or `"$@"`. */
const FIELD_BREAK = '\u0007';

/**
 * Sets the positional parameters (`$1`…, `$@`, `$*`, `$#`) to `args`, as `set -- args` or a
 * call of a function with those arguments does. `$@` keeps each argument a word of its own.
 */
export function set_positional(state: ShellState, args: readonly string[]): void {
  for (const name of [...state.vars.keys()]) {
    if (/^(?:[0-9]+|[@*#])$/.test(name)) state.vars.delete(name);
  }
  for (const [index, arg] of args.slice(0, 32).entries()) state.vars.set(String(index + 1), [arg]);
  state.vars.set('@', [args.join(FIELD_BREAK)]);
  state.vars.set('*', [args.join(' ')]);
  state.vars.set('#', [String(args.length)]);
}
const DEFAULT_IFS = ' \t\n';
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/s;
const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** A copy of `state` for a command that runs apart (a subshell, `bash -c`, `$(…)`). */
export function copy_state(state: ShellState): ShellState {
  return { cwd: state.cwd, vars: new Map(state.vars) };
}

/**
 * Every value `word` may have: known variables put in, unknown ones as `UNKNOWN_MARK`. With
 * `split`, the value of a variable written outside double quotes has its `IFS` characters (each
 * value `IFS` may hold on the line; space, tab and newline unless set) made `FIELD_BREAK`s, where
 * `expand_words` splits the word as bash does.
 */
export function expand_word(word: string, state: ShellState, split = false): string[] {
  if (!word.includes(VARIABLE_OPEN) && !word.includes(SPLIT_VARIABLE_OPEN)) return [word];
  const separators = split ? (state.vars.get('IFS') ?? [DEFAULT_IFS]) : [''];
  let values = [''];
  let last = 0;
  for (const match of word.matchAll(VARIABLE)) {
    const literal = word.slice(last, match.index);
    let options = state.vars.get(match[2]!) ?? [UNKNOWN_MARK];
    if (split && match[1] === SPLIT_VARIABLE_OPEN) {
      options = separators.flatMap((ifs) => options.map((option) => broken(option, ifs)));
    }
    values = values
      .flatMap((value) => options.map((option) => value + literal + option))
      .slice(0, MAX_ALTERNATIVES);
    last = match.index + match[0].length;
  }
  const tail = word.slice(last);
  return [...new Set(values.map((value) => value + tail))];
}

/** `value` with each character of `ifs` made a `FIELD_BREAK` (an unknown `IFS` splits nothing). */
function broken(value: string, ifs: string): string {
  if (ifs === '' || ifs.includes(UNKNOWN_MARK)) return value;
  let out = '';
  for (const char of value) out += ifs.includes(char) ? FIELD_BREAK : char;
  return out;
}

/**
 * Every word list `words` may expand to (at most `MAX_ALTERNATIVES`): variables put in, and an
 * unquoted variable's value split into words on `IFS` (`IFS=,; c=rm,-rf,/; $c` runs `rm -rf /`).
 */
export function expand_words(words: readonly string[], state: ShellState): string[][] {
  let lists: string[][] = [[]];
  for (const word of words) {
    const values = expand_word(word, state, true).map((value) =>
      value.includes(FIELD_BREAK)
        ? value.split(FIELD_BREAK).filter((field) => field !== '')
        : [value],
    );
    lists = lists
      .flatMap((list) => values.map((fields) => [...list, ...fields]))
      .slice(0, MAX_ALTERNATIVES);
  }
  return lists;
}

/** `path` as seen from the folder the line is in; `undefined` when that folder is unknown. */
export function resolve_from(path: string, cwd: string | undefined): string | undefined {
  if (path.startsWith('/') || path.startsWith(HOME_MARK)) return path;
  return cwd === undefined ? undefined : `${cwd}/${path}`;
}

/** An assignment's value as bash reads it: a leading `~` is the home directory. */
function assigned_value(value: string): string {
  return /^~(?:\/|$)/.test(value) ? HOME_MARK + value.slice(1) : value;
}

function assign(words: readonly string[], state: ShellState): void {
  const values = new Map<string, string[]>();
  for (const word of words) {
    const match = ASSIGNMENT.exec(word);
    if (match) values.set(match[1]!, expand_word(assigned_value(match[2]!), state));
  }
  for (const [name, value] of values) state.vars.set(name, value);
}

function change_folder(words: readonly string[], state: ShellState): void {
  const operands = words.slice(1).filter((word) => !/^-[LPe@]+$/.test(word));
  const target = operands[0];
  if (target === undefined) {
    state.cwd = HOME_MARK;
    return;
  }
  const values = expand_word(target, state);
  const only = values.length === 1 ? values[0]! : undefined;
  state.cwd =
    only === undefined || only === '-' || only.includes(UNKNOWN_MARK)
      ? undefined
      : resolve_from(only, state.cwd);
}

/**
 * Records what one simple command sets for the commands after it: plain assignments (a command of
 * only `NAME=value` words, or behind `export`/`declare`/`local`…), `for NAME in …` (the name may
 * hold each word), `unset`, and the folder (`cd`, `pushd`; `popd` and `cd -` make it unknown).
 * Assignments before a command (`x=/ rm $x`) are not recorded: bash expands `$x` before they apply.
 */
export function apply_command(command: SimpleCommand, state: ShellState): void {
  let words = command.words;
  while (words.length > 0 && KEYWORDS.has(words[0]!)) words = words.slice(1);
  if (words.length === 0) return;
  const first = words[0]!;
  if (words.every((word) => ASSIGNMENT.test(word))) {
    assign(words, state);
    return;
  }
  if (DECLARERS.has(first)) {
    assign(words.slice(1), state);
    return;
  }
  if (first === 'for' && words[2] === 'in' && words[1] !== undefined) {
    const values = words.slice(3).flatMap((word) => expand_word(word, state));
    state.vars.set(words[1], values.slice(0, MAX_ALTERNATIVES));
    return;
  }
  if (first === 'unset') {
    for (const name of words.slice(1)) state.vars.delete(name);
    return;
  }
  if (first === 'set' && words.includes('--')) {
    const args = words.slice(words.indexOf('--') + 1);
    const lists = expand_words(args, state);
    if (lists.length === 1) set_positional(state, lists[0]!);
    else for (const name of ['1', '@', '*', '#']) state.vars.set(name, [UNKNOWN_MARK]);
    return;
  }
  const name = basename(strip_prefix(words)[0] ?? '');
  if (name === 'cd' || name === 'pushd') change_folder(strip_prefix(words), state);
  else if (name === 'popd') state.cwd = undefined;
}

/**
 * The text a literal `echo` or `printf` prints (each value it may have), or `undefined` when it
 * is not one: what a shell reads as its script in `echo 'rm -rf /' | sh`.
 */
export function printed_text(
  command: SimpleCommand | undefined,
  state: ShellState,
): string[] | undefined {
  if (command === undefined) return undefined;
  const words = strip_prefix(command.words);
  const name = basename(words[0] ?? '');
  if (name === 'echo') {
    let rest = words.slice(1);
    let escapes = false;
    while (rest[0] !== undefined && /^-[neE]+$/.test(rest[0])) {
      if (rest[0].includes('e')) escapes = true;
      rest = rest.slice(1);
    }
    return expand_words(rest, state).map((list) => {
      const text = list.join(' ');
      return escapes ? decode_ansi_c(text) : text;
    });
  }
  if (name === 'cat' && words.slice(1).every((word) => word === '-')) {
    // `cat <<'E' | sh`: cat passes its own stdin on
    const texts: string[] = [];
    for (const redirect of command.redirects) {
      if (redirect.operator === '<<<') texts.push(...expand_word(redirect.target, state));
      else if (redirect.body !== undefined) texts.push(redirect.body);
    }
    return texts.length > 0 ? texts : undefined;
  }
  if (name === 'printf') {
    const [format, ...rest] = words.slice(1);
    if (format === undefined || format.startsWith('-')) return undefined;
    return expand_words([format, ...rest], state).map(([shape = '', ...args]) =>
      printf_text(shape, args),
    );
  }
  return undefined;
}

/** What `printf FORMAT ARGS…` prints, for `%s`, `%b`, `%%` and escapes; other directives as `%s`. */
function printf_text(format: string, args: readonly string[]): string {
  const shape = decode_ansi_c(format);
  let out = '';
  let next = 0;
  do {
    out += shape.replace(/%(%|[-+ #0-9.]*[a-zA-Z])/g, (directive) =>
      directive === '%%' ? '%' : (args[next++] ?? ''),
    );
  } while (next > 0 && next < args.length && next < 64);
  return out;
}

/**
 * The scripts a shell command reads from stdin, when its stdin is known text: a here-string
 * (`bash <<< 'rm -rf /'`), a here-doc's body, or the output of a literal `echo` or `printf` piped
 * into it (`echo 'rm -rf /' | sh`). Empty for a command that is no such shell.
 */
export function stdin_scripts(command: SimpleCommand, state: ShellState): string[] {
  if (!reads_script_from_stdin(command)) return [];
  const scripts: string[] = [];
  for (const redirect of command.redirects) {
    if (redirect.operator === '<<<') scripts.push(...expand_word(redirect.target, state));
    else if (redirect.body !== undefined) scripts.push(redirect.body);
  }
  scripts.push(...(printed_text(command.input, state) ?? []));
  return scripts.slice(0, MAX_ALTERNATIVES);
}

/** The words a literal `echo` or `printf` prints, or `undefined` when that is not known. */
function printed_items(
  command: SimpleCommand | undefined,
  state: ShellState,
): string[] | undefined {
  if (command === undefined) return undefined;
  const words = strip_prefix(command.words);
  const name = basename(words[0] ?? '');
  const values = (list: readonly string[]) =>
    list.flatMap((word) => expand_word(word, state)).flatMap((word) => word.split(/\s+/));
  let items: string[];
  if (name === 'echo') {
    let rest = words.slice(1);
    while (rest[0] !== undefined && /^-[neE]+$/.test(rest[0])) rest = rest.slice(1);
    items = values(rest);
  } else if (name === 'printf') {
    const [format = '', ...rest] = words.slice(1);
    const text = format.replace(/\\[ntr]/g, ' ').replace(/%%/g, '%');
    items = rest.length > 0 ? values(rest) : values([text]);
  } else return undefined;
  return items.filter((item) => item !== '');
}

const XARGS_WITH_VALUE = new Set([
  '-n',
  '-P',
  '-L',
  '-l',
  '-d',
  '-E',
  '-e',
  '-s',
  '--max-args',
  '--max-procs',
  '--max-lines',
  '--delimiter',
  '--eof',
  '--max-chars',
]);

/**
 * The commands `xargs` runs (`words` start at `xargs`): its command with the items piped in from
 * a literal `echo` or `printf` appended, or put in place of the `-I` string. Items from anywhere
 * else are unknown and left out (the command is still returned).
 */
export function xargs_runs(
  words: readonly string[],
  input: SimpleCommand | undefined,
  state: ShellState,
): string[][] {
  let replace: string | undefined;
  let from_file = false;
  let i = 1;
  while (i < words.length) {
    const word = words[i]!;
    if (word === '--') {
      i++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (word === '-I') {
      replace = words[i + 1];
      i += 2;
    } else if (word.startsWith('-I')) {
      replace = word.slice(2);
      i++;
    } else if (word === '-i' || word === '--replace') {
      replace = '{}';
      i++;
    } else if (word.startsWith('--replace=')) {
      replace = word.slice('--replace='.length);
      i++;
    } else if (word === '-a' || word === '--arg-file') {
      from_file = true;
      i += 2;
    } else if (word.startsWith('--arg-file=')) {
      from_file = true;
      i++;
    } else i += XARGS_WITH_VALUE.has(word) ? 2 : 1;
  }
  const command = words.length > i ? words.slice(i) : ['echo'];
  const items = from_file ? undefined : printed_items(input, state);
  if (items === undefined || items.length === 0) return [command];
  if (replace === undefined || replace === '') return [[...command, ...items]];
  return items
    .slice(0, MAX_ALTERNATIVES)
    .map((item) => command.map((word) => word.split(replace).join(item)));
}

/** Options of `find` that select nothing: with only these, every starting point is acted on. */
const FIND_GLOBAL = new Set([
  '-depth',
  '-d',
  '-xdev',
  '-mount',
  '-follow',
  '-noleaf',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-daystart',
  '-warn',
  '-nowarn',
  '-print',
  '-print0',
]);
const FIND_GLOBAL_WITH_VALUE = new Set(['-maxdepth', '-mindepth']);
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * The commands `find` runs on its own starting points (`words` start at `find`): `-delete` as
 * `rm -r <start>`, and `-exec CMD {} ;` with `{}` as each start, when no test (`-name`, `-type`…)
 * comes before them, so the starting point itself is acted on.
 */
export function find_runs(words: readonly string[]): string[][] {
  let i = 1;
  while (i < words.length && /^-(?:[HLP]|O\d)$/.test(words[i]!)) i++;
  if (words[i] === '-D') i += 2;
  const starts: string[] = [];
  while (i < words.length && !/^[-(!,]/.test(words[i]!)) starts.push(words[i++]!);
  if (starts.length === 0) starts.push('.');
  const runs: string[][] = [];
  let unfiltered = true;
  while (i < words.length) {
    const word = words[i]!;
    if (FIND_EXEC.has(word)) {
      let end = i + 1;
      while (end < words.length && words[end] !== ';' && words[end] !== '+') end++;
      const command = words.slice(i + 1, end);
      if (unfiltered && command.length > 0) {
        for (const start of starts) {
          runs.push(command.map((part) => part.split('{}').join(start)));
        }
      }
      i = end + 1;
    } else if (word === '-delete') {
      if (unfiltered) runs.push(['rm', '-r', ...starts]);
      i++;
    } else if (FIND_GLOBAL_WITH_VALUE.has(word)) i += 2;
    else if (FIND_GLOBAL.has(word)) i++;
    else {
      unfiltered = false;
      i++;
    }
  }
  return runs;
}

/**
 * What a line of bash has set up by the time each simple command runs, as far as a safety check
 * can know it without running anything: the variables assigned earlier on the line (`x=/`,
 * `export x=/`, `for x in a /`), the folder changed to (`cd /`, `pushd ~`), and the commands
 * that `xargs` and `find` run for their input (`echo / | xargs rm -rf`, `find / -exec rm {} \;`).
 * Anything it cannot know stays `UNKNOWN_MARK`; it never guesses a value.
 */
import { basename, KEYWORDS, type SimpleCommand, strip_prefix } from './shell_commands.js';
import { HOME_MARK, UNKNOWN_MARK, VARIABLE_CLOSE, VARIABLE_OPEN } from './shell_words.js';

/** What the line has set so far. */
export interface ShellState {
  /** The folder commands run in (absolute, or starting with `HOME_MARK`); `undefined`: unknown. */
  cwd?: string;
  /** Each variable set on the line, with every value it may hold at this point. */
  vars: Map<string, string[]>;
}

/** The most alternatives followed for one word or one command (the rest are not checked). */
const MAX_ALTERNATIVES = 32;
const VARIABLE = new RegExp(`${VARIABLE_OPEN}([A-Za-z_][A-Za-z0-9_]*)${VARIABLE_CLOSE}`, 'g');
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/s;
const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/** A copy of `state` for a command that runs apart (a subshell, `bash -c`, `$(…)`). */
export function copy_state(state: ShellState): ShellState {
  return { cwd: state.cwd, vars: new Map(state.vars) };
}

/** Every value `word` may have: known variables put in, unknown ones as `UNKNOWN_MARK`. */
export function expand_word(word: string, state: ShellState): string[] {
  if (!word.includes(VARIABLE_OPEN)) return [word];
  let values = [''];
  let last = 0;
  for (const match of word.matchAll(VARIABLE)) {
    const literal = word.slice(last, match.index);
    const options = state.vars.get(match[1]!) ?? [UNKNOWN_MARK];
    values = values
      .flatMap((value) => options.map((option) => value + literal + option))
      .slice(0, MAX_ALTERNATIVES);
    last = match.index + match[0].length;
  }
  const tail = word.slice(last);
  return values.map((value) => value + tail);
}

/** Every word list `words` may expand to, one value per word (at most `MAX_ALTERNATIVES`). */
export function expand_words(words: readonly string[], state: ShellState): string[][] {
  let lists: string[][] = [[]];
  for (const word of words) {
    const values = expand_word(word, state);
    lists = lists
      .flatMap((list) => values.map((value) => [...list, value]))
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
  const name = basename(strip_prefix(words)[0] ?? '');
  if (name === 'cd' || name === 'pushd') change_folder(strip_prefix(words), state);
  else if (name === 'popd') state.cwd = undefined;
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

import { homedir } from 'node:os';
import {
  basename,
  KEYWORDS,
  nested_scripts,
  SEPARATORS,
  type SimpleCommand,
  split_commands,
  strip_prefix,
} from './shell_commands.js';
import {
  apply_command,
  copy_state,
  expand_word,
  expand_words,
  find_runs,
  resolve_from,
  type ShellState,
  set_positional,
  stdin_scripts,
  xargs_runs,
} from './shell_expand.js';
import { HOME_MARK, parse_shell, type ShellToken, UNKNOWN_MARK } from './shell_words.js';

/** Which hardline rule a command broke. */
export type HardlineRule = 'rm_root' | 'mkfs' | 'block_device' | 'fork_bomb' | 'too_nested';

/** Why a command is refused. `message` is meant for the model. */
export interface HardlineViolation {
  rule: HardlineRule;
  message: string;
}

const MAX_DEPTH = 6;
const OUTPUT_REDIRECTS = new Set(['>', '>>', '>|', '&>', '&>>', '>&', '<>']);
/** Commands whose file operands are written to (or wiped) outright. */
const DEVICE_WRITERS = new Set(['tee', 'shred', 'wipefs', 'blkdiscard', 'mkswap']);
const BLOCK_DEVICE =
  /^\/dev\/(?:(?:s|h|v|xv)d[a-z]|nvme\d|mmcblk\d|r?disk\d|disk\/|md\d|dm-\d|mapper\/|nbd\d|zd\d|loop\d|ram\d|mtdblock\d|root$)/;

function shown(word: string): string {
  return word.split(HOME_MARK).join('~').split(UNKNOWN_MARK).join('…');
}

/**
 * Resolves `.` and `..` and says what deleting the path would take: the whole file system for `/`
 * and `/*`, the home directory for `~`, `~/*`, an ancestor of `~` or the home's literal path.
 */
function precious_target(word: string, home: string): string | undefined {
  let path = word;
  let base: 'root' | 'home';
  if (path.startsWith(HOME_MARK)) {
    base = 'home';
    path = path.slice(HOME_MARK.length);
    if (path !== '' && !path.startsWith('/')) return undefined;
  } else if (path.startsWith('/')) {
    base = 'root';
  } else return undefined;
  if (path.includes(HOME_MARK)) return undefined;
  const segments: string[] = [];
  let above_home = false;
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length > 0) segments.pop();
      else if (base === 'home') above_home = true;
    } else segments.push(segment);
  }
  const everything = segments.length === 0 || (segments.length === 1 && is_match_all(segments[0]!));
  if (base === 'home') {
    if (above_home) return 'the folder holding your home directory';
    return everything ? 'your home directory' : undefined;
  }
  if (everything) return 'the whole file system';
  // the home directory spelled out, or everything in it
  if (home === '' || home === '/') return undefined;
  const literal = `/${segments.join('/')}`;
  const last = segments[segments.length - 1]!;
  const parent = `/${segments.slice(0, -1).join('/')}`;
  if (literal === home || (parent === home && is_match_all(last))) return 'your home directory';
  if (home.startsWith(`${literal}/`)) return 'the folder holding your home directory';
  return undefined;
}

function is_match_all(segment: string): boolean {
  return segment === '*' || segment === '.*';
}

function is_recursive_flag(word: string): boolean {
  if (word.startsWith('--')) return word.length > 2 && 'recursive'.startsWith(word.slice(2));
  return /^-[A-Za-z]*[rR]/.test(word);
}

function check_rm(
  words: readonly string[],
  home: string,
  cwd: string | undefined,
): HardlineViolation | undefined {
  let recursive = false;
  const operands: string[] = [];
  let options_done = false;
  for (const word of words.slice(1)) {
    if (!options_done && word === '--') options_done = true;
    else if (!options_done && word.startsWith('-') && word.length > 1) {
      recursive ||= is_recursive_flag(word);
    } else operands.push(word);
  }
  if (!recursive) return undefined;
  for (const target of operands) {
    const path = resolve_from(target, cwd);
    if (path === undefined) continue;
    const what = precious_target(path, home);
    if (what === undefined) continue;
    const where = path === target ? '' : ` (in \`${shown(cwd ?? '')}\`)`;
    return {
      rule: 'rm_root',
      message: `a recursive rm of \`${shown(target)}\`${where} would delete ${what}`,
    };
  }
  return undefined;
}

function normalize_device(path: string): string {
  return path.replace(/\/+/g, '/');
}

function check_redirects(command: SimpleCommand, state: ShellState): HardlineViolation | undefined {
  for (const redirect of command.redirects) {
    if (!OUTPUT_REDIRECTS.has(redirect.operator)) continue;
    for (const value of expand_word(redirect.target, state)) {
      const target = normalize_device(value);
      if (BLOCK_DEVICE.test(target)) {
        return {
          rule: 'block_device',
          message: `redirecting output onto the block device \`${target}\` would destroy its data`,
        };
      }
    }
  }
  return undefined;
}

function check_dd(words: readonly string[]): HardlineViolation | undefined {
  for (const word of words.slice(1)) {
    if (!word.startsWith('of=')) continue;
    const target = normalize_device(word.slice(3));
    if (BLOCK_DEVICE.test(target)) {
      return {
        rule: 'block_device',
        message: `dd onto the block device \`${target}\` would destroy its data`,
      };
    }
  }
  return undefined;
}

/**
 * A command word only known when it runs (`$(echo rm)`, `` `which dd` ``, an unset `$RM`) is
 * refused when its arguments are what `rm`, `dd` or `mkfs` would destroy with.
 */
function check_unknown_word(
  words: readonly string[],
  home: string,
  cwd: string | undefined,
): HardlineViolation | undefined {
  const unknown = `the command word \`${shown(words[0]!)}\` is only known when it runs`;
  const as_rm = check_rm(words, home, cwd);
  if (as_rm) return { rule: 'rm_root', message: `${unknown}, and as rm ${as_rm.message}` };
  const as_dd = check_dd(words);
  if (as_dd) return { rule: 'block_device', message: `${unknown}, and as ${as_dd.message}` };
  const device = words
    .slice(1)
    .map(normalize_device)
    .find((word) => BLOCK_DEVICE.test(word));
  if (device !== undefined) {
    return {
      rule: 'mkfs',
      message: `${unknown}, and as mkfs it would format the block device \`${device}\``,
    };
  }
  return undefined;
}

/** Checks the words one command runs, its variables already put in. */
function check_words(
  words: readonly string[],
  home: string,
  cwd: string | undefined,
): HardlineViolation | undefined {
  const name = words[0] === undefined ? '' : basename(words[0]);
  if (name.includes(UNKNOWN_MARK)) return check_unknown_word(words, home, cwd);
  if (name === 'rm') return check_rm(words, home, cwd);
  if (name.startsWith('mkfs') || name === 'mke2fs') {
    return {
      rule: 'mkfs',
      message: `\`${name}\` formats a file system and destroys what was on it`,
    };
  }
  if (name === 'dd') return check_dd(words);
  if (DEVICE_WRITERS.has(name)) {
    const target = words
      .slice(1)
      .map(normalize_device)
      .find((word) => BLOCK_DEVICE.test(word));
    if (target !== undefined) {
      return {
        rule: 'block_device',
        message: `\`${name}\` onto the block device \`${target}\` would destroy its data`,
      };
    }
  }
  return undefined;
}

const KEEP_XARGS: ReadonlySet<string> = new Set(['xargs']);

/** The word lists a command runs: itself, and what its `xargs` or `find` runs in turn. */
function runs_of(words: readonly string[], command: SimpleCommand, state: ShellState): string[][] {
  const stripped = strip_prefix(words, KEEP_XARGS);
  const name = basename(stripped[0] ?? '');
  if (name === 'xargs') {
    return xargs_runs(stripped, command.input, state).map((run) => strip_prefix(run));
  }
  if (name === 'find') return [stripped, ...find_runs(stripped)];
  return [stripped];
}

function check_command(
  command: SimpleCommand,
  home: string,
  state: ShellState,
): HardlineViolation | undefined {
  const redirected = check_redirects(command, state);
  if (redirected) return redirected;
  for (const words of expand_words(command.words, state)) {
    for (const run of runs_of(words, command, state)) {
      const found = check_words(run, home, state.cwd);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A function that calls itself at least twice, piped or in the background: `:(){ :|:& };:` and
 * every renamed spelling of it.
 */
function find_fork_bomb(tokens: readonly ShellToken[]): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    let name: string | undefined;
    let body_start = -1;
    const token = tokens[i]!;
    const at = (offset: number) => tokens[i + offset];
    if (
      token.kind === 'word' &&
      at(1)?.value === '(' &&
      at(2)?.value === ')' &&
      at(3)?.kind === 'word' &&
      at(3)?.value === '{'
    ) {
      name = token.value === 'function' ? undefined : token.value;
      body_start = i + 4;
    } else if (token.kind === 'word' && token.value === 'function' && at(1)?.kind === 'word') {
      name = at(1)!.value;
      const brace = at(2)?.value === '(' && at(3)?.value === ')' ? 4 : 2;
      if (at(brace)?.kind === 'word' && at(brace)?.value === '{') body_start = i + brace + 1;
    }
    if (name === undefined || body_start < 0) continue;
    let depth = 1;
    let calls = 0;
    let concurrent = false;
    let command_position = true;
    for (let j = body_start; j < tokens.length && depth > 0; j++) {
      const body = tokens[j]!;
      if (body.kind === 'word') {
        if (body.value === '{') depth++;
        else if (body.value === '}' && command_position && --depth === 0) break;
        if (command_position && body.value === name) calls++;
        command_position = KEYWORDS.has(body.value);
      } else {
        if (body.value === '|' || body.value === '|&' || body.value === '&') concurrent = true;
        command_position = SEPARATORS.has(body.value);
      }
    }
    if (calls >= 2 && concurrent) return name;
  }
  return undefined;
}

/** The functions a line defines (`f() { …; }`, `function f { …; }`), with their bodies' tokens. */
function find_functions(tokens: readonly ShellToken[]): Map<string, ShellToken[]> {
  const found = new Map<string, ShellToken[]>();
  for (let i = 0; i < tokens.length; i++) {
    const at = (offset: number) => tokens[i + offset];
    let name: string | undefined;
    let open = -1;
    if (tokens[i]!.kind === 'word' && at(1)?.value === '(' && at(2)?.value === ')') {
      name = tokens[i]!.value;
      open = i + 3;
    } else if (
      tokens[i]!.kind === 'word' &&
      tokens[i]!.value === 'function' &&
      at(1)?.kind === 'word'
    ) {
      name = at(1)!.value;
      open = at(2)?.value === '(' && at(3)?.value === ')' ? i + 4 : i + 2;
    }
    if (name === undefined || name === 'function' || tokens[open]?.value !== '{') continue;
    let depth = 0;
    for (let j = open; j < tokens.length; j++) {
      const token = tokens[j]!;
      if (token.kind === 'word' && token.value === '{') depth++;
      else if (token.kind === 'word' && token.value === '}' && --depth === 0) {
        found.set(name, tokens.slice(open + 1, j));
        break;
      }
    }
  }
  return found;
}

function check(
  command: string,
  home: string,
  depth: number,
  state: ShellState,
): HardlineViolation | undefined {
  if (depth > MAX_DEPTH) {
    return { rule: 'too_nested', message: 'the command nests shells too deeply to be checked' };
  }
  const { tokens, substitutions } = parse_shell(command);
  const bomb = find_fork_bomb(tokens);
  if (bomb !== undefined) {
    return {
      rule: 'fork_bomb',
      message: `the function \`${bomb}\` calls itself in parallel: a fork bomb`,
    };
  }
  const found = check_tokens(tokens, find_functions(tokens), home, depth, state, new Set());
  if (found) return found;
  for (const script of substitutions) {
    const nested = check(script, home, depth + 1, copy_state(state));
    if (nested) return nested;
  }
  return undefined;
}

/**
 * Checks the simple commands of `tokens` in order, following calls of the line's functions (once
 * each on a chain of calls: a function calling itself is read once, its body already checked).
 */
function check_tokens(
  tokens: readonly ShellToken[],
  functions: ReadonlyMap<string, ShellToken[]>,
  home: string,
  depth: number,
  state: ShellState,
  calling: ReadonlySet<string>,
): HardlineViolation | undefined {
  for (const simple of split_commands(tokens)) {
    const found = check_command(simple, home, state);
    if (found) return found;
    // a call of a function defined on the line runs its body with these arguments
    const called = strip_prefix(simple.words);
    const name = called[0];
    const body = name === undefined ? undefined : functions.get(name);
    if (
      name !== undefined &&
      body !== undefined &&
      !calling.has(name) &&
      calling.size < MAX_DEPTH
    ) {
      const chain = new Set([...calling, name]);
      for (const args of expand_words(called.slice(1), state)) {
        const inner = copy_state(state);
        set_positional(inner, args);
        const in_body = check_tokens(body, functions, home, depth, inner, chain);
        if (in_body) return in_body;
      }
    }
    for (const script of nested_scripts(simple)) {
      for (const text of expand_word(script, state)) {
        const nested = check(text, home, depth + 1, copy_state(state));
        if (nested) return nested;
      }
    }
    // a shell reading known text on stdin runs it: `bash <<< '…'`, `echo '…' | sh`
    for (const text of stdin_scripts(simple, state)) {
      const nested = check(text, home, depth + 1, copy_state(state));
      if (nested) return nested;
    }
    apply_command(simple, state);
  }
  return undefined;
}

/**
 * Checks a bash command line against the hardline: the few commands refused in every mode, because
 * nothing a model could want from them outweighs what they destroy.
 *
 * Refused: a recursive `rm` (any flag spelling, behind `sudo`, `env`…) of `/`, `/*`, `~`,
 * `$HOME`, `${HOME}` or the home directory's path; `mkfs*`; `dd of=`, a redirection, `tee`,
 * `shred`, `wipefs`, `blkdiscard` or `mkswap` onto a block device (`/dev/sd*`, `/dev/nvme*`…);
 * fork bombs (a function that calls itself twice, piped or in the background, under any name).
 * Commands inside `$(…)`, backticks, `bash -c '…'` and `eval` are checked too, and so is text a
 * shell reads on stdin when it is known (a here-string, a here-doc, a literal `echo` or `printf`
 * piped in); quoted text that is only printed (`echo "rm -rf /"`) is not a command and passes.
 * Words are read as bash reads them: ANSI-C quotes decoded (`$'\x72\x6d'`), braces expanded
 * (`{/,}`), an unquoted variable split on `IFS` (`IFS=,; c=rm,-rf,/; $c`). The line is read in order:
 * variables it sets (`x=/; rm -rf $x`), folders it changes to (`cd / && rm -rf *`; relative paths
 * resolve against `options.cwd` when given), literal input piped into `xargs`
 * (`echo / | xargs rm -rf`), what `find` runs on its own starting point (`-exec`, `-delete`), and a
 * command word only known when it runs (`$(echo rm) -rf /`) used with such arguments.
 *
 * This is a first line against the obvious forms, not a boundary: a blocklist of text cannot see
 * every way to spell a command (input read from a file, values computed at run time). The sandbox
 * (`sandbox` config) is what keeps a command from writing outside the work dir.
 *
 * Contract: pure, never throws; `undefined` when the command may run.
 */
export function check_hardline(
  command: string,
  options: { home?: string; cwd?: string } = {},
): HardlineViolation | undefined {
  const home = (options.home ?? homedir()).replace(/\/+$/, '');
  const cwd = options.cwd === undefined ? undefined : options.cwd.replace(/\/+$/, '') || '/';
  const found = check(command, home, 0, { cwd, vars: new Map() });
  if (!found) return undefined;
  return {
    rule: found.rule,
    message: `Refused by the hardline: ${found.message}. This rule holds in every mode and the command was not run.`,
  };
}

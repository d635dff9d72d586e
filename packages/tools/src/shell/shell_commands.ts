/**
 * The simple commands of a bash line, as far as safety checks need them: the words of each
 * command, its redirections, the command word behind wrappers (`sudo`, `env`, `timeout 10`…), and
 * the scripts it runs in turn (`bash -c '…'`, `eval …`).
 */
import type { ShellToken } from './shell_words.js';

/** Operators that end one simple command. */
export const SEPARATORS = new Set([';', '&', '&&', '||', '|', '|&', '(', ')']);
/** Words bash reads before the command itself (`if`, `then`, a `{` group, `!`…). */
export const KEYWORDS = new Set([
  '{',
  '}',
  '!',
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
]);
/** Shells whose `-c` argument is a script. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'busybox']);

/**
 * Commands that run the rest of their arguments as a command, with the options of theirs that
 * take a value (so `sudo -u root rm …` is seen as `rm …`), and how many plain operands of their
 * own come before the command (`timeout 10 rm …`).
 */
const WRAPPERS: { [name: string]: { with_value: string[]; operands?: number } } = {
  sudo: { with_value: ['-u', '-g', '-h', '-p', '-C', '-D', '-R', '-T', '-U', '-r', '-t'] },
  doas: { with_value: ['-u', '-C'] },
  env: { with_value: ['-u', '-C', '-S'] },
  nice: { with_value: ['-n'] },
  ionice: { with_value: ['-c', '-n', '-p'] },
  stdbuf: { with_value: ['-i', '-o', '-e'] },
  timeout: { with_value: ['-s', '-k'], operands: 1 },
  xargs: { with_value: ['-I', '-n', '-P', '-L', '-d', '-E', '-s', '-a'] },
  exec: { with_value: ['-a'] },
  nohup: { with_value: [] },
  time: { with_value: [] },
  command: { with_value: [] },
  builtin: { with_value: [] },
};

const NONE: ReadonlySet<string> = new Set();

/** One simple command: its words (quotes removed) and its redirections. */
export interface SimpleCommand {
  words: string[];
  /** Redirections; a here-doc's (`<<`) carries its `body`. */
  redirects: { operator: string; target: string; body?: string }[];
  /** The command whose output is piped into this one (`a | b`: `a` for `b`). */
  input?: SimpleCommand;
}

/** The last path segment of a word (`/bin/rm` → `rm`). */
export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Splits tokens at separators into simple commands, redirections set apart. */
export function split_commands(tokens: readonly ShellToken[]): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'word') {
      current.words.push(token.value);
    } else if (SEPARATORS.has(token.value)) {
      commands.push(current);
      const piped = token.value === '|' || token.value === '|&';
      current = piped ? { words: [], redirects: [], input: current } : { words: [], redirects: [] };
    } else {
      const next = tokens[i + 1];
      if (next?.kind === 'word') {
        current.redirects.push({
          operator: token.value,
          target: next.value,
          ...(next.body === undefined ? {} : { body: next.body }),
        });
        i++;
      }
    }
  }
  commands.push(current);
  return commands.filter((command) => command.words.length > 0 || command.redirects.length > 0);
}

/**
 * Drops assignments, keywords and wrappers (`sudo`, `env`, `timeout 5`…) before the command. A
 * wrapper named in `keep` (`xargs`, for a caller that reads its options itself) is left in place.
 */
export function strip_prefix(words: readonly string[], keep: ReadonlySet<string> = NONE): string[] {
  let rest = [...words];
  for (let guard = 0; guard < 32 && rest.length > 0; guard++) {
    const first = rest[0]!;
    if (KEYWORDS.has(first) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
      rest = rest.slice(1);
      continue;
    }
    if (keep.has(basename(first))) break;
    const wrapper = WRAPPERS[basename(first)];
    if (!wrapper) break;
    let i = 1;
    let operands = wrapper.operands ?? 0;
    while (i < rest.length) {
      const word = rest[i]!;
      if (word === '--') {
        i++;
        break;
      }
      if (word.startsWith('-') && word.length > 1) {
        i += wrapper.with_value.includes(word) ? 2 : 1;
      } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
        i++; // `env NAME=value` and `sudo NAME=value`
      } else if (operands > 0) {
        operands--;
        i++;
      } else break;
    }
    rest = rest.slice(i);
  }
  return rest;
}

/**
 * Whether a simple command is a shell that reads its script from stdin: `bash`, `sh -s`,
 * `bash -x` (no `-c`, and no script file named unless `-s` says stdin anyway).
 */
export function reads_script_from_stdin(command: SimpleCommand): boolean {
  const words = strip_prefix(command.words);
  const name = words[0] === undefined ? '' : basename(words[0]);
  if (!SHELLS.has(name)) return false;
  const rest = name === 'busybox' ? words.slice(2) : words.slice(1);
  let stdin_flag = false;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === '--' || word === '-') return true;
    if (!word.startsWith('-') && !word.startsWith('+')) return stdin_flag;
    if (/^-[A-Za-z]*c/.test(word)) return false;
    if (/^-[A-Za-z]*s/.test(word)) stdin_flag = true;
    // `-o pipefail`, `+O extglob`: the option's value is not a script file
    if (/^[-+][A-Za-z]*[oO]$/.test(word)) i++;
  }
  return true;
}

/** Command texts a simple command runs in turn: `bash -c '…'`, `eval …`. */
export function nested_scripts(command: SimpleCommand): string[] {
  const words = strip_prefix(command.words);
  const name = words[0] === undefined ? '' : basename(words[0]);
  if (name === 'eval') return [words.slice(1).join(' ')];
  if (!SHELLS.has(name)) return [];
  const rest = name === 'busybox' ? words.slice(2) : words.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (!word.startsWith('-') || word === '--') break;
    if (/^-[A-Za-z]*c/.test(word)) return rest[i + 1] === undefined ? [] : [rest[i + 1]!];
  }
  return [];
}

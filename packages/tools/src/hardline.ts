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

function check_rm(words: readonly string[], home: string): HardlineViolation | undefined {
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
    const what = precious_target(target, home);
    if (what === undefined) continue;
    return {
      rule: 'rm_root',
      message: `a recursive rm of \`${shown(target)}\` would delete ${what}`,
    };
  }
  return undefined;
}

function normalize_device(path: string): string {
  return path.replace(/\/+/g, '/');
}

function check_command(command: SimpleCommand, home: string): HardlineViolation | undefined {
  for (const redirect of command.redirects) {
    const target = normalize_device(redirect.target);
    if (OUTPUT_REDIRECTS.has(redirect.operator) && BLOCK_DEVICE.test(target)) {
      return {
        rule: 'block_device',
        message: `redirecting output onto the block device \`${target}\` would destroy its data`,
      };
    }
  }
  const words = strip_prefix(command.words);
  const name = words[0] === undefined ? '' : basename(words[0]);
  if (name === 'rm') return check_rm(words, home);
  if (name.startsWith('mkfs') || name === 'mke2fs') {
    return {
      rule: 'mkfs',
      message: `\`${name}\` formats a file system and destroys what was on it`,
    };
  }
  if (name === 'dd') {
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
  }
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

function check(command: string, home: string, depth: number): HardlineViolation | undefined {
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
  for (const simple of split_commands(tokens)) {
    const found = check_command(simple, home);
    if (found) return found;
    for (const script of nested_scripts(simple)) {
      const nested = check(script, home, depth + 1);
      if (nested) return nested;
    }
  }
  for (const script of substitutions) {
    const nested = check(script, home, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * Checks a bash command line against the hardline: the few commands refused in every mode, because
 * nothing a model could want from them outweighs what they destroy.
 *
 * Refused: a recursive `rm` (any flag spelling, behind `sudo`, `env`, `xargs`…) of `/`, `/*`,
 * `~`, `$HOME`, `${HOME}` or the home directory's path; `mkfs*`; `dd of=`, a redirection, `tee`,
 * `shred`, `wipefs`, `blkdiscard` or `mkswap` onto a block device (`/dev/sd*`, `/dev/nvme*`…);
 * fork bombs (a function that calls itself twice, piped or in the background, under any name).
 * Commands inside `$(…)`, backticks, `bash -c '…'` and `eval` are checked too; quoted text that is
 * only printed (`echo "rm -rf /"`) is not a command and passes.
 *
 * Contract: pure, never throws; `undefined` when the command may run.
 */
export function check_hardline(
  command: string,
  options: { home?: string } = {},
): HardlineViolation | undefined {
  const home = (options.home ?? homedir()).replace(/\/+$/, '');
  const found = check(command, home, 0);
  if (!found) return undefined;
  return {
    rule: found.rule,
    message: `Refused by the hardline: ${found.message}. This rule holds in every mode and the command was not run.`,
  };
}

/**
 * What Tab offers after the words typed so far (`lich __complete <words…>`, which the shell
 * scripts of `lich completion` call): the commands, each command's own subcommands and options
 * (read from its `--help`, so they cannot drift), an option's allowed values, session ids where
 * a session is named, and files or folders where an option takes a path (C8).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { COMMANDS, type CommandName, help_text } from './help.js';
import { short_id } from './session_ids.js';

/** Said instead of words when the shell should complete file or folder names. */
export const COMPLETE_FILES = ':files';
export const COMPLETE_DIRS = ':dirs';

/** One word Tab may offer, with the help's description for shells that show one. */
export interface Candidate {
  word: string;
  description?: string;
}

interface OptionInfo {
  short?: string;
  value?: string;
  description: string;
}

/** The allowed values of options whose help names a closed set. */
const OPTION_VALUES: Readonly<Record<string, readonly string[]>> = {
  'output-format': ['text', 'json', 'stream-json'],
  'approval-mode': ['default', 'auto_edit', 'yolo'],
  provider: ['openai_compat', 'anthropic', 'ollama', 'gemini', 'bedrock'],
};

/** Words after a command that are not in its help's Subcommands section. */
const EXTRA_WORDS: Readonly<Record<string, readonly string[]>> = {
  gateway: ['telegram', 'discord', 'twitch', 'webhook', 'pair'],
  skills: ['list'],
  completion: ['bash', 'zsh', 'fish'],
  help: COMMANDS,
};

/** Subcommands whose next word is a session id. */
const TAKES_SESSION = new Set(['show', 'resume', 'export', 'repair']);

/** The options a help text lists, by long name. */
function options_of(help: string): Map<string, OptionInfo> {
  const options = new Map<string, OptionInfo>();
  const section = help.slice(help.indexOf('\nOptions:'));
  for (const match of section.matchAll(
    /^ {2}(?:-([A-Za-z]), )?--([a-z][a-z-]*)(?: <([^>]+)>)?\s+(.*)$/gm,
  )) {
    options.set(match[2] as string, {
      ...(match[1] === undefined ? {} : { short: match[1] }),
      ...(match[3] === undefined ? {} : { value: match[3] }),
      description: (match[4] as string).trim(),
    });
  }
  return options;
}

/** The subcommands a help text lists: the first word of each line of its Subcommands section. */
function subcommands_of(help: string): Candidate[] {
  const start = help.indexOf('\nSubcommands:\n');
  if (start === -1) return [];
  const end = help.indexOf('\n\n', start + 1);
  const section = help.slice(start, end === -1 ? undefined : end);
  const found: Candidate[] = [];
  for (const match of section.matchAll(/^ {2}([a-z][a-z-]*)\b(.*)$/gm)) {
    const word = match[1] as string;
    if (found.some((candidate) => candidate.word === word)) continue;
    const rest = (match[2] as string).replace(/^[^\s]*(\s+<[^>]*>|\s+\[[^\]]*\]|\s+--?\S+)*/, '');
    found.push({ word, description: rest.trim() });
  }
  return found;
}

/** The short ids of the sessions of `work_dir`, newest first (their files' names sort by time). */
function session_ids(work_dir: string): string[] {
  try {
    return readdirSync(join(work_dir, '.lich', 'sessions'))
      .filter((name) => name.endsWith('.jsonl'))
      .sort()
      .reverse()
      .map((name) => short_id(name.slice(0, -'.jsonl'.length)));
  } catch {
    return [];
  }
}

/** What an option's value completes to: its allowed values, sessions, files or folders. */
function values_for(name: string, option: OptionInfo, work_dir: string): Candidate[] | string {
  const closed = OPTION_VALUES[name];
  if (closed !== undefined) return closed.map((word) => ({ word }));
  if (name === 'resume' || name === 'session') {
    return session_ids(work_dir).map((word) => ({ word }));
  }
  const value = option.value ?? '';
  if (value === 'dir') return COMPLETE_DIRS;
  if (value === 'file' || value === 'path') return COMPLETE_FILES;
  return [];
}

/**
 * The candidates for the last of `words` (the words after `lich`; the last is the one being
 * typed, possibly empty), or `COMPLETE_FILES` / `COMPLETE_DIRS`. `cwd` is where `lich` runs.
 * Pure apart from listing the session folder; never throws.
 */
export function complete_words(words: readonly string[], cwd: string): Candidate[] | string {
  const typed = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  // the command: the first word that is not an option or an option's value
  const main_options = options_of(help_text('main'));
  let command: CommandName | undefined;
  let command_at = -1;
  let work_dir = cwd;
  for (let index = 0; index < before.length; index += 1) {
    const word = before[index] as string;
    if (word.startsWith('-')) {
      const long = word.startsWith('--') ? word.slice(2) : undefined;
      const option = long === undefined ? undefined : main_options.get(long);
      const short = [...main_options.values()].find((entry) => `-${entry.short}` === word);
      if ((option ?? short)?.value !== undefined) {
        if (word === '-C' || word === '--work-dir')
          work_dir = resolve(cwd, before[index + 1] ?? '.');
        index += 1;
      }
      continue;
    }
    if ((COMMANDS as readonly string[]).includes(word)) {
      command = word as CommandName;
      command_at = index;
    }
    break;
  }
  const help = help_text(command ?? 'main');
  const options = options_of(help);
  // -C anywhere sets the folder whose sessions are offered
  const dir_flag = before.findIndex((word) => word === '-C' || word === '--work-dir');
  if (dir_flag !== -1 && before[dir_flag + 1] !== undefined) {
    work_dir = resolve(cwd, before[dir_flag + 1] as string);
  }
  // the value of the option just before
  const previous = before.at(-1);
  if (previous?.startsWith('-') === true) {
    const name = previous.startsWith('--')
      ? previous.slice(2)
      : [...options.entries()].find(([, option]) => `-${option.short}` === previous)?.[0];
    const option = name === undefined ? undefined : options.get(name);
    if (name !== undefined && option?.value !== undefined)
      return values_for(name, option, work_dir);
  }
  if (typed.startsWith('-')) {
    const found: Candidate[] = [];
    for (const [name, option] of options) {
      found.push({ word: `--${name}`, description: option.description });
    }
    return found;
  }
  if (command === undefined) {
    return COMMANDS.map((word) => ({ word }));
  }
  const after = before.slice(command_at + 1).filter((word) => !word.startsWith('-'));
  if (after.length === 0) {
    const listed = subcommands_of(help);
    const extra = (EXTRA_WORDS[command] ?? []).map((word) => ({ word }));
    return [
      ...listed,
      ...extra.filter((entry) => !listed.some((item) => item.word === entry.word)),
    ];
  }
  if (command === 'sessions' && after.length === 1 && TAKES_SESSION.has(after[0] as string)) {
    return session_ids(work_dir).map((word) => ({ word }));
  }
  if (command === 'rewind' && after.length === 0) return [];
  return [];
}

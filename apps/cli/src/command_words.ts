import { AGENT_OPTIONS, type OptionTable, OUTPUT_OPTIONS, SERVE_OPTIONS } from './args.js';
import { COMMANDS, type CommandName } from './help.js';

/**
 * Words kept for commands that other packages add (`lich serve`, `lich gateway`…): a bare one is
 * never sent to the model as a task.
 */
export const RESERVED_WORDS: readonly string[] = ['serve', 'gateway'];

/** The `--name` and `-x` spellings of the options of `tables` that take a value. */
function value_spellings(tables: readonly OptionTable[]): string[] {
  return tables.flatMap((table) =>
    Object.entries(table)
      .filter(([, option]) => option.type === 'string')
      .flatMap(([name, option]) => [`--${name}`, ...(option.short ? [`-${option.short}`] : [])]),
  );
}

/**
 * Options (of any command) that take a value, so the word after them is not a command: those of
 * the agent commands and `serve` from their tables (`lich --port 0 serve` is `lich serve --port
 * 0`), and those of the commands whose tables load with them.
 */
const VALUE_OPTIONS = new Set([
  ...value_spellings([AGENT_OPTIONS, OUTPUT_OPTIONS, SERVE_OPTIONS]),
  '--output-format',
  '--resume',
  '--limit',
  '--out',
  '--url',
  '--env',
  '--header',
  '--session',
]);

/**
 * Where the first word that is not an option is in `argv`, skipping options and their values
 * (`lich -C dir sessions list` → 2); -1 when there is none or it comes after `--`.
 */
export function first_word_index(argv: readonly string[]): number {
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] as string;
    if (token === '--') return -1;
    if (token.startsWith('-') && token.length > 1) {
      if (VALUE_OPTIONS.has(token)) index++;
      continue;
    }
    return index;
  }
  return -1;
}

/** Whether `word` is one of the commands. */
export function is_command(word: string): word is CommandName {
  return (COMMANDS as readonly string[]).includes(word);
}

/**
 * Whether a bare word given where a command could be looks like a mistyped command: a reserved
 * name, or within one edit of a command (two for words of six letters or more), or the start of
 * one (three letters at least). `p`, `fix`, `hello` are not; `sesions`, `chats`, `conf` are.
 * Only a single word counts: a quoted task (`lich "sessions are slow"`) has a space.
 */
export async function looks_like_command(word: string): Promise<string | undefined> {
  if (!/^[a-z][a-z0-9_-]*$/i.test(word)) return undefined;
  if (RESERVED_WORDS.includes(word)) return word;
  const { nearest_word } = await import('@lich/agent');
  return nearest_word(word, COMMANDS, word.length >= 6 ? 2 : 1);
}

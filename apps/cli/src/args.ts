import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage_error.js';

/** The option table of one command, as `node:util` `parseArgs` takes it. */
export type OptionTable = NonNullable<ParseArgsConfig['options']>;

/** Options every command that reads the config takes. */
export const CONFIG_OPTIONS = {
  'work-dir': { type: 'string', short: 'C' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies OptionTable;

/** Options that choose the provider and the model (the agent commands and `lich config`). */
export const PROVIDER_OPTIONS = {
  provider: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  'max-turns': { type: 'string' },
  'max-budget-usd': { type: 'string' },
} as const satisfies OptionTable;

/** Options of the commands that run the agent (`lich "task"`, `run`, `chat`, `sessions resume`). */
export const AGENT_OPTIONS = {
  ...CONFIG_OPTIONS,
  ...PROVIDER_OPTIONS,
  'no-session': { type: 'boolean' },
  'show-reasoning': { type: 'boolean' },
  'approval-mode': { type: 'string' },
  yolo: { type: 'boolean' },
  'system-prompt': { type: 'string' },
  'append-system-prompt': { type: 'string' },
  'allowed-tools': { type: 'string', multiple: true },
  'disallowed-tools': { type: 'string', multiple: true },
  trust: { type: 'boolean' },
} as const satisfies OptionTable;

/** How a run is printed: `--json`, `--output-format`, `-q/--quiet`, `-v/--verbose`. */
export const OUTPUT_OPTIONS = {
  json: { type: 'boolean' },
  'output-format': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  verbose: { type: 'boolean', short: 'v' },
} as const satisfies OptionTable;

/** `-c/--continue`: resume the newest session of the work dir (`lich "task"`, `run`, `chat`). */
export const CONTINUE_OPTIONS = {
  continue: { type: 'boolean', short: 'c' },
} as const satisfies OptionTable;

/** Options of `lich serve` (here, so the command grammar knows which of them take a value). */
export const SERVE_OPTIONS = {
  ...AGENT_OPTIONS,
  port: { type: 'string' },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean' },
  'allow-origin': { type: 'string', multiple: true },
  stdio: { type: 'boolean' },
  'print-token': { type: 'boolean' },
  store: { type: 'string' },
} as const satisfies OptionTable;

/** The parsed values of an option table. */
export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** A negative number written as an argument: `-1`, `-0.5`. */
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/** Stands in for a negative number given as a positional while `parseArgs` runs. */
const NEGATIVE_MARK = '\u0000negative:';

/** Whether `token` names an option of `options` that takes a value (`--model`, `-m`). */
export function takes_value(token: string, options: OptionTable): boolean {
  if (token.startsWith('--')) {
    const name = token.slice(2);
    return !name.includes('=') && options[name]?.type === 'string';
  }
  if (/^-[A-Za-z]$/.test(token)) {
    const letter = token.slice(1);
    return Object.values(options).some(
      (option) => option.short === letter && option.type === 'string',
    );
  }
  return false;
}

/**
 * `argv` with negative numbers made safe for `parseArgs`, which reads `-1` as an option: after an
 * option that takes a value it becomes that option's value (`--max-turns=-1`); elsewhere a
 * positional, marked until the parse is done.
 */
function protect_negative_numbers(argv: readonly string[], options: OptionTable): string[] {
  const out: string[] = [];
  let after_separator = false;
  for (const token of argv) {
    if (token === '--') after_separator = true;
    if (!after_separator && NEGATIVE_NUMBER.test(token)) {
      const previous = out.at(-1);
      if (previous !== undefined && takes_value(previous, options)) {
        out[out.length - 1] = previous.startsWith('--')
          ? `${previous}=${token}`
          : `${previous}${token}`;
      } else {
        out.push(`${NEGATIVE_MARK}${token}`);
      }
      continue;
    }
    out.push(token);
  }
  return out;
}

/**
 * Node's `parseArgs` messages in Lich's words: `Option '-m, --model <value>' argument missing` is
 * `flag --model needs a value`; `Option '--json' does not take an argument` is `flag --json takes
 * no value`. Anything else is kept.
 */
export function plain_parse_message(message: string): string {
  const flag = (spec: string) => /--[\w-]+/.exec(spec)?.[0] ?? spec;
  const missing = /^Option '([^']+)' argument missing/.exec(message);
  if (missing?.[1] !== undefined) return `flag ${flag(missing[1])} needs a value`;
  const extra = /^Option '([^']+)' does not take an argument/.exec(message);
  if (extra?.[1] !== undefined) return `flag ${flag(extra[1])} takes no value`;
  return message;
}

/**
 * Parses `argv` against `options`. Throws a `UsageError` naming the command for an unknown option
 * (main suggests the nearest known one), a missing value, or a value given to a flag. Negative
 * numbers (`--max-turns -1`, `config set max_turns -5`) are values, not options.
 */
export function parse_command_args(
  command: string,
  argv: readonly string[],
  options: OptionTable,
): { values: ParsedValues; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: protect_negative_numbers(argv, options),
      options,
      allowPositionals: true,
      strict: true,
    });
    const positionals = parsed.positionals.map((value) =>
      value.startsWith(NEGATIVE_MARK) ? value.slice(NEGATIVE_MARK.length) : value,
    );
    return { values: parsed.values as ParsedValues, positionals };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const given = /'([^']+)'/.exec(message)?.[1] ?? '';
      // `lich --frobnicate x` never typed `run`: name the command only when it was a word
      const which = command === 'run' ? '' : ` for ${command}`;
      throw new UsageError(`unknown option '${given}'${which}`, command, {
        word: given.replace(/^-+/, ''),
        candidates: Object.keys(options),
        prefix: '--',
      });
    }
    throw new UsageError(plain_parse_message(message.split('\n')[0] ?? message), command);
  }
}

/**
 * Refuses `--no-session` with `-c`/`--continue` or `--resume`: a continued session is recorded,
 * so the two cannot both hold. Throws a `UsageError` naming `command`.
 */
export function check_session_flags(command: string, values: ParsedValues): void {
  if (values['no-session'] !== true) return;
  const other =
    values.continue === true ? '-c/--continue' : values.resume !== undefined ? '--resume' : null;
  if (other !== null) {
    throw new UsageError(
      `--no-session and ${other} contradict each other: a continued session is recorded`,
      command,
    );
  }
}

/** A positive integer option, or a UsageError naming the flag. */
export function integer_option(
  command: string,
  name: string,
  value: string | boolean | (string | boolean)[] | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return integer_option(command, name, value[value.length - 1]);
  const number = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(number) || number < 1) {
    throw new UsageError(
      `--${name} expects a positive whole number, got '${String(value)}'`,
      command,
    );
  }
  return number;
}

/** A positive number option's value (`--max-budget-usd 2.5`), or undefined. */
export function dollars_option(
  command: string,
  name: string,
  value: string | boolean | (string | boolean)[] | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return dollars_option(command, name, value[value.length - 1]);
  const number = Number(typeof value === 'string' ? value.replace(/^\$/, '') : Number.NaN);
  if (typeof value !== 'string' || !Number.isFinite(number) || number <= 0) {
    throw new UsageError(
      `--${name} expects a positive number of dollars, got '${String(value)}'`,
      command,
    );
  }
  return number;
}

/** A string option's value (the last one when repeated), or undefined. */
export function string_option(
  value: string | boolean | (string | boolean)[] | undefined,
): string | undefined {
  if (Array.isArray(value)) return string_option(value[value.length - 1]);
  return typeof value === 'string' ? value : undefined;
}

/**
 * A list option's values, each split at commas: `--allowed-tools read_file,grep --allowed-tools
 * glob` is `['read_file', 'grep', 'glob']`; undefined when the option is absent.
 */
export function list_option(
  value: string | boolean | (string | boolean)[] | undefined,
): string[] | undefined {
  if (value === undefined) return undefined;
  const items = (Array.isArray(value) ? value : [value]).filter(
    (item): item is string => typeof item === 'string',
  );
  return items
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

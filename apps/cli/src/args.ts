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

/** Options of the commands that run the agent (`lich "task"`, `run`, `chat`). */
export const AGENT_OPTIONS = {
  ...CONFIG_OPTIONS,
  provider: { type: 'string' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  'max-turns': { type: 'string' },
  'no-session': { type: 'boolean' },
  'show-reasoning': { type: 'boolean' },
} as const satisfies OptionTable;

/** The parsed values of an option table. */
export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * Parses `argv` against `options`. Throws a `UsageError` naming the command for an unknown option
 * (main suggests the nearest known one), a missing value, or a value given to a flag.
 */
export function parse_command_args(
  command: string,
  argv: readonly string[],
  options: OptionTable,
): { values: ParsedValues; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: parsed.values as ParsedValues, positionals: parsed.positionals };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const given = /'([^']+)'/.exec(message)?.[1] ?? '';
      throw new UsageError(`unknown option '${given}'`, command, {
        word: given.replace(/^-+/, ''),
        candidates: Object.keys(options),
        prefix: '--',
      });
    }
    throw new UsageError(message.split('\n')[0] ?? message, command);
  }
}

/** A positive integer option, or a UsageError naming the flag. */
export function integer_option(
  command: string,
  name: string,
  value: string | boolean | (string | boolean)[] | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(number) || number < 1) {
    throw new UsageError(
      `--${name} expects a positive whole number, got '${String(value)}'`,
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

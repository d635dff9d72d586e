import { type ParsedValues, string_option } from './args.js';
import { OUTPUT_FORMATS, type OutputFormat } from './stream_json.js';
import { UsageError } from './usage_error.js';

/** How a command prints a run. */
export interface OutputSettings {
  format: OutputFormat;
  /** `-q`: no progress on stderr (warnings and errors still). */
  quiet: boolean;
  /** `-v`: each model call's provider, time and tokens, and every retry. */
  verbose: boolean;
}

/**
 * The output settings of `values`: `--json` is `--output-format json`; `-q` and `-v` together,
 * an unknown format, or `--json` beside another format are UsageErrors naming the command.
 */
export function output_settings(command: string, values: ParsedValues): OutputSettings {
  const given = string_option(values['output-format']);
  if (given !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(given)) {
    throw new UsageError(
      `--output-format expects ${OUTPUT_FORMATS.join(', ')}, got '${given}'`,
      command,
      { word: given, candidates: OUTPUT_FORMATS },
    );
  }
  if (values.json === true && given !== undefined && given !== 'json') {
    throw new UsageError(`--json is --output-format json; it cannot go with '${given}'`, command);
  }
  if (values.quiet === true && values.verbose === true) {
    throw new UsageError('--quiet and --verbose contradict each other: give one', command);
  }
  return {
    format: values.json === true ? 'json' : ((given as OutputFormat | undefined) ?? 'text'),
    quiet: values.quiet === true,
    verbose: values.verbose === true,
  };
}

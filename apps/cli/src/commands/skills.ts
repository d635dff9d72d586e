import { CONFIG_OPTIONS, parse_command_args } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

/**
 * `lich skills list`: the skills found for the folder (name, where from, description), then a
 * warning for each `SKILL.md` that could not be read. `--json` prints one document.
 */
export const command_skills: Command = async (context) => {
  const { values, positionals } = parse_command_args('skills', context.argv, {
    ...CONFIG_OPTIONS,
    json: { type: 'boolean' },
  });
  if (values.help) {
    context.io.stdout.write(`${help_text('skills')}\n`);
    return EXIT.OK;
  }
  const [subcommand = 'list', ...rest] = positionals;
  if (subcommand !== 'list' || rest.length > 0) {
    throw new UsageError(`unknown subcommand '${positionals.join(' ')}'`, 'skills');
  }
  const loaded = await load_cli_config(context, 'skills', values);
  if (loaded === null) return EXIT.USAGE;
  const { find_skills_for, format_skills } = await import('@lich/agent');
  const catalog = await find_skills_for(loaded.config, context.io.env);
  if (values.json) {
    context.io.stdout.write(`${JSON.stringify(catalog, null, 2)}\n`);
    return EXIT.OK;
  }
  context.io.stdout.write(`${format_skills(catalog)}\n`);
  return EXIT.OK;
};

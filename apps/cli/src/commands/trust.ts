import { resolve } from 'node:path';
import { CONFIG_OPTIONS, parse_command_args } from '../args.js';
import { load_cli_config } from '../cli_config.js';
import type { Command, CommandContext } from '../context.js';
import { EXIT } from '../exit_codes.js';
import { help_text } from '../help.js';
import { UsageError } from '../usage_error.js';

async function set_trust(context: CommandContext, command: 'trust' | 'untrust'): Promise<number> {
  const { values, positionals } = parse_command_args(command, context.argv, { ...CONFIG_OPTIONS });
  if (values.help) {
    context.io.stdout.write(`${help_text(command)}\n`);
    return EXIT.OK;
  }
  if (positionals.length > 1) throw new UsageError('give one folder at most', command);
  const folder = positionals[0];
  const loaded = await load_cli_config(context, command, {
    ...values,
    ...(folder === undefined ? {} : { 'work-dir': resolve(context.io.cwd, folder) }),
  });
  if (loaded === null) return EXIT.USAGE;
  const { repository_runnables, set_folder_trust, trust_file_path } = await import('@lich/agent');
  const work_dir = loaded.config.work_dir;
  await set_folder_trust(work_dir, command === 'trust' ? 'trusted' : 'untrusted', context.io.env);
  const runnables = await repository_runnables(loaded.config, context.io.env);
  const lines = [
    command === 'trust'
      ? `Trusted ${work_dir}: what it ships may run.`
      : `Not trusted ${work_dir}: nothing it ships runs on its own (its skills are still listed).`,
    ...(runnables.length === 0
      ? ['It ships no hooks, command shell lines or skill permissions.']
      : ['It ships:', ...runnables.map((line) => `  ${line}`)]),
    `(kept in ${trust_file_path(context.io.env)})`,
  ];
  context.io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.OK;
}

/** `lich trust [folder]`: let what the folder's repository ships run (hooks, shell lines). */
export const command_trust: Command = (context) => set_trust(context, 'trust');

/** `lich untrust [folder]`: run nothing the folder's repository ships, and stop asking. */
export const command_untrust: Command = (context) => set_trust(context, 'untrust');

import type { CommandRegistry, SlashCommand } from '../host/command_registry.js';
import { type CommandIoOptions, custom_command_io } from './custom_command_shell.js';
import type { CustomCommand } from './custom_command_types.js';
import { expand_custom_command } from './expand_custom_command.js';

/** A custom command as a `SlashCommand`: its result's `prompt` is what the surface sends. */
export function custom_slash_command(command: CustomCommand, io: CommandIoOptions): SlashCommand {
  return {
    name: command.name,
    description: command.description,
    ...(command.argument_hint === undefined ? {} : { argument_hint: command.argument_hint }),
    async run(context, args) {
      const prompt = await expand_custom_command(command, args, custom_command_io(command, io));
      const wanted = command.model;
      if (wanted === undefined) return { ok: true, output: '', prompt };
      const served = context
        .models()
        .some(({ provider, model }) => wanted === model || wanted === `${provider}/${model}`);
      // a model the config does not serve (Claude Code's `haiku`, say) leaves the session's
      return served
        ? { ok: true, output: '', prompt, model: wanted }
        : {
            ok: true,
            output: `/${command.name} names the model ${wanted}, which no configured provider serves; it runs on the session's model`,
            prompt,
          };
    },
  };
}

/**
 * Adds the custom commands to `registry` after the built-in and plugin ones: a name already taken
 * is left to its owner, with a warning naming the file.
 */
export function register_custom_commands(
  registry: CommandRegistry,
  commands: readonly CustomCommand[],
  io: CommandIoOptions,
  on_warning: (text: string) => void,
): void {
  for (const command of commands) {
    if (registry.has(command.name)) {
      on_warning(
        `command ${command.path}: /${command.name} is already a command; this one is not offered`,
      );
      continue;
    }
    registry.register(custom_slash_command(command, io));
  }
}

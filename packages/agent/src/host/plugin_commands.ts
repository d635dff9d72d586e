import type { PluginCommand } from '@lich/tools';
import { ConfigError } from '../config/config_error.js';
import type { CommandRegistry, SlashCommand } from './command_registry.js';

/** A plugin's command as a `SlashCommand`: its string answer becomes `{ ok: true, output }`. */
export function plugin_slash_command(command: PluginCommand): SlashCommand {
  return {
    name: command.name,
    description: command.description,
    ...(command.argument_hint === undefined ? {} : { argument_hint: command.argument_hint }),
    async run(context, args) {
      const result = await command.run(args, {
        session_id: context.session_id,
        work_dir: context.work_dir,
      });
      if (typeof result === 'string') return { ok: true, output: result };
      if (typeof result !== 'object' || result === null || typeof result.output !== 'string') {
        return { ok: false, output: `/${command.name} returned no result` };
      }
      return { ok: result.ok === true, output: result.output };
    },
  };
}

/**
 * Adds the plugins' slash commands to `registry`; returns a function that removes them again.
 * Throws a `ConfigError` naming the plugin when a name is taken (a built-in command's, say):
 * nothing of that plugin set stays registered.
 */
export function register_plugin_commands(
  registry: CommandRegistry,
  commands: readonly { plugin: string; command: PluginCommand }[],
): () => void {
  const removers: (() => void)[] = [];
  const remove_all = () => {
    for (const remove of removers.splice(0)) remove();
  };
  for (const { plugin, command } of commands) {
    if (registry.has(command.name)) {
      remove_all();
      throw new ConfigError(
        `plugin '${plugin}': the slash command /${command.name} is already registered`,
        { key_path: 'plugins' },
      );
    }
    removers.push(registry.register(plugin_slash_command(command)));
  }
  return remove_all;
}

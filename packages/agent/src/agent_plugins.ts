import { dirname } from 'node:path';
import { user_config_path } from './config/config_file.js';
import type { AgentConfig } from './config/config_schema.js';
import type { CommandIoOptions } from './custom_commands/custom_command_shell.js';
import { find_custom_commands } from './custom_commands/find_custom_commands.js';
import { register_custom_commands } from './custom_commands/register_custom_commands.js';
import { type LoadedPlugins, load_plugins, type PluginTarget } from './load_plugins.js';

/** What an agent's plugins and custom commands are loaded into. */
export interface AgentPluginsOptions {
  config: Pick<AgentConfig, 'plugins' | 'work_dir'>;
  env: Readonly<Record<string, string | undefined>>;
  /** Where the plugins' tools, hooks, listeners and slash commands go. */
  target: Omit<PluginTarget, 'work_dir' | 'on_warning'>;
  /** How the custom commands' shell lines and file reads run. */
  command_io: CommandIoOptions;
  on_warning: (text: string) => void;
}

/**
 * The config's plugins and the custom commands of the work dir and the user's config folder, as
 * an agent loads them: once, plugins first (their slash commands come before the custom ones).
 *
 * Contract:
 * - `prepare` loads the plugins (none when the config names none), then finds and registers the
 *   custom commands, each once; it rejects with a `ConfigError` naming a plugin that could not be
 *   loaded, and the next call tries the plugins again; the custom commands' warnings are said;
 * - `close` detaches what the plugins attached; it never rejects.
 */
export class AgentPlugins {
  readonly #options: AgentPluginsOptions;
  #plugins: Promise<LoadedPlugins | undefined> | undefined;
  #custom_commands: Promise<void> | undefined;

  constructor(options: AgentPluginsOptions) {
    this.#options = options;
  }

  /** Loads the plugins and the custom commands, once. */
  prepare(): Promise<void> {
    const { config, target, on_warning } = this.#options;
    if (config.plugins.length === 0) return this.#prepare_custom_commands();
    this.#plugins ??= load_plugins(config.plugins, {
      ...target,
      work_dir: config.work_dir,
      on_warning,
    });
    const loading = this.#plugins;
    loading.catch(() => {
      if (this.#plugins === loading) this.#plugins = undefined;
    });
    return loading.then(() => this.#prepare_custom_commands());
  }

  /** Finds the custom commands once and adds them to the commands, after the plugins'. */
  #prepare_custom_commands(): Promise<void> {
    const { config, env, target, command_io, on_warning } = this.#options;
    this.#custom_commands ??= find_custom_commands({
      work_dir: config.work_dir,
      config_dir: dirname(user_config_path(env)),
    }).then((catalog) => {
      for (const warning of catalog.warnings) on_warning(warning);
      register_custom_commands(target.commands, catalog.commands, command_io, on_warning);
    });
    return this.#custom_commands;
  }

  /** Detaches the loaded plugins' hooks and listeners. Never rejects. */
  async close(): Promise<void> {
    const plugins = await this.#plugins?.catch(() => undefined);
    await plugins?.close().catch(() => undefined);
  }
}

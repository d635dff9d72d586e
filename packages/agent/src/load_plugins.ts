import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentEmitter } from '@lich/core';
import type { Plugin, ToolExecutor, ToolRegistry } from '@lich/tools';
import { ConfigError } from './config/config_error.js';
import type { CommandRegistry } from './host/command_registry.js';
import { register_plugin_commands } from './host/plugin_commands.js';

/** What plugins are loaded into. */
export interface PluginTarget {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** Plugin event listeners hear every run's events from here. */
  emitter: AgentEmitter;
  /** Plugin slash commands go here (beside the built-in ones). */
  commands: CommandRegistry;
  /** Where module paths are resolved from. */
  work_dir: string;
  /** Hears a plugin hook that failed (the run goes on). */
  on_warning: (text: string) => void;
}

/** The loaded plugins; `close` detaches their hooks and listeners. */
export interface LoadedPlugins {
  readonly names: readonly string[];
  close(): Promise<void>;
}

/** The plugins built into Lich, by the name a config uses. */
const BUILT_IN: Readonly<Record<string, () => Promise<Plugin>>> = {
  gatekeeper: async () => (await import('@lich/tools')).gatekeeper_plugin(),
};

/** The names of the plugins built into Lich (no module is loaded for them). */
export const BUILT_IN_PLUGIN_NAMES: readonly string[] = Object.freeze(Object.keys(BUILT_IN));

function is_plugin(value: unknown): value is Plugin {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { register?: unknown }).register === 'function'
  );
}

function message_of(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A path (`./x.js`, `/abs/x.js`) is resolved against the work dir. A package name is looked up
 * from the work dir first (a plugin installed in the project), else from Lich's own location.
 */
function module_specifier(name: string, work_dir: string): string {
  if (name.startsWith('.') || isAbsolute(name)) {
    return pathToFileURL(resolve(work_dir, name)).href;
  }
  try {
    return pathToFileURL(createRequire(join(work_dir, 'package.json')).resolve(name)).href;
  } catch {
    return name;
  }
}

async function resolve_plugin(name: string, work_dir: string): Promise<Plugin> {
  const built_in = BUILT_IN[name];
  if (built_in) return built_in();
  let module: Record<string, unknown>;
  try {
    module = (await import(module_specifier(name, work_dir))) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`plugin '${name}' could not be loaded: ${message_of(error)}`, {
      key_path: 'plugins',
      cause: error,
    });
  }
  const exported = module.default ?? module.plugin;
  const candidate = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  if (!is_plugin(candidate)) {
    throw new ConfigError(
      `plugin '${name}' exports no plugin: its default export must be { name, register(api) } or a function returning one`,
      { key_path: 'plugins' },
    );
  }
  return candidate;
}

/**
 * Loads the plugins a config names, in order, through a `PluginHost`: `gatekeeper` is built in;
 * any other name is a module path (relative to the work dir) or a package name whose default
 * export (or `plugin` export) is a Plugin or a function returning one. Their tools go into the
 * registry, their hooks onto the executor, their listeners onto the emitter, their slash
 * commands into the command registry.
 * Rejects with a ConfigError naming the plugin when one cannot be loaded or registered: a plugin
 * that was asked for (a gatekeeper, say) never silently goes missing.
 */
export async function load_plugins(
  names: readonly string[],
  target: PluginTarget,
): Promise<LoadedPlugins> {
  // Imported here: a config without plugins never loads the plugin machinery.
  const { PluginHost } = await import('@lich/tools');
  const host = new PluginHost({
    on_error: (error, failure) =>
      target.on_warning(`plugin '${failure.plugin}' ${failure.hook} failed: ${message_of(error)}`),
  });
  for (const name of names) {
    const plugin = await resolve_plugin(name, target.work_dir);
    try {
      await host.load(plugin);
    } catch (error) {
      throw new ConfigError(message_of(error), { key_path: 'plugins', cause: error });
    }
  }
  const remove_commands = register_plugin_commands(target.commands, host.commands());
  try {
    host.register_tools(target.registry);
  } catch (error) {
    remove_commands();
    throw new ConfigError(message_of(error), { key_path: 'plugins', cause: error });
  }
  const remove_hooks = target.executor.add_hooks(host.tool_hooks);
  const stop_listening = target.emitter.on(host.listener);
  return {
    names: host.plugin_names,
    close: async () => {
      remove_commands();
      remove_hooks();
      stop_listening();
    },
  };
}

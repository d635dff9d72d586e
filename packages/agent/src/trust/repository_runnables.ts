import { dirname } from 'node:path';
import { user_config_path } from '../config/config_file.js';
import { find_custom_commands } from '../custom_commands/find_custom_commands.js';
import { resolve_hook_sets } from '../hooks/hook_sources.js';
import { HOOK_EVENTS, type HookSet } from '../hooks/hooks_schema.js';
import { find_skills_for } from '../skills/find_skills.js';
import type { HeldUntilTrusted } from './config_for_trust.js';

/** What a config needs for `repository_runnables`. */
export interface RunnablesConfig {
  work_dir: string;
  hooks: readonly HookSet[];
  skills: { enabled: boolean; import: readonly string[] };
  /** What the repository's config file sets that waits for trust (`load_config` fills it). */
  held_until_trusted?: HeldUntilTrusted;
}

/**
 * What the repository in `config.work_dir` ships that would act on its own once the folder is
 * trusted, one line each: what its config file sets that waits for trust (plugins, MCP servers
 * that start commands, permission and sandbox widenings…, each line starting `config:`), its hooks
 * (per file, with their events), the skills whose `allowed-tools` would be granted, the custom
 * commands with shell lines. Empty when it ships none. Never rejects.
 */
export async function repository_runnables(
  config: RunnablesConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string[]> {
  const lines = (config.held_until_trusted?.lines ?? []).map((line) => `config: ${line}`);
  const sets = await resolve_hook_sets({
    sets: config.hooks,
    work_dir: config.work_dir,
    ...(env.HOME ? { home: env.HOME } : {}),
    on_warning: () => undefined,
  });
  for (const set of sets) {
    if (set.origin !== 'project') continue;
    const events = HOOK_EVENTS.flatMap((event) => {
      const count = (set.settings[event] ?? []).reduce((sum, group) => sum + group.hooks.length, 0);
      return count === 0 ? [] : [`${event} ×${count}`];
    });
    if (events.length > 0) lines.push(`hooks in ${set.source}: ${events.join(', ')}`);
  }
  const { skills } = await find_skills_for(config, env);
  for (const skill of skills) {
    if (skill.scope === 'project' && skill.allowed_tools !== undefined) {
      lines.push(`skill ${skill.name} (${skill.path}) allows ${skill.allowed_tools.join(', ')}`);
    }
  }
  const { commands } = await find_custom_commands({
    work_dir: config.work_dir,
    config_dir: dirname(user_config_path(env)),
  });
  for (const command of commands) {
    const shell = command.dialect === 'toml' ? /!\{/ : /!`/;
    if (command.origin === 'project' && shell.test(command.template)) {
      lines.push(`command /${command.name} (${command.path}) runs shell lines`);
    }
  }
  return lines;
}

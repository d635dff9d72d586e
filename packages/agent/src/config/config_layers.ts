import { resolve } from 'node:path';
import type { HookSet, HooksSettings } from '../hooks/hooks_schema.js';
import { merge_permissions } from '../permissions/permissions_schema.js';
import { hold_project_settings, type ProjectHold } from '../trust/hold_project_settings.js';
import { ConfigError } from './config_error.js';
import { project_config_path, read_config_file, user_config_path } from './config_file.js';
import type { ConfigFlags, ConfigSource, LoadConfigOptions } from './config_load.js';
import { CONFIG_KEYS, CONFIG_SCHEMA } from './config_schema.js';

export interface Layers {
  merged: Record<string, unknown>;
  sources: Record<string, ConfigSource>;
  warnings: string[];
}

function merge_layer(
  merged: Record<string, unknown>,
  sources: Record<string, ConfigSource>,
  layer: Record<string, unknown>,
  source: ConfigSource,
): void {
  for (const key of CONFIG_KEYS) {
    const value = layer[key];
    if (value === undefined) continue;
    const previous = merged[key];
    // mcp_servers merge by server name, compression and checkpoints by field, so a project file
    // can add a server or change one setting without repeating the user file.
    if (key === 'permissions') {
      // rules add up across layers; a later mode wins
      merged[key] = merge_permissions(previous, value);
    } else if (
      (key === 'mcp_servers' ||
        key === 'compression' ||
        key === 'checkpoints' ||
        key === 'skills' ||
        key === 'prices' ||
        key === 'budget') &&
      typeof previous === 'object' &&
      previous !== null &&
      typeof value === 'object'
    ) {
      merged[key] = { ...(previous as object), ...(value as object) };
    } else {
      merged[key] = value;
    }
    sources[key] = source;
  }
}

function env_number(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): number | string | undefined {
  const text = env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

export async function apply_file_layers(
  layers: Layers,
  env: Readonly<Record<string, string | undefined>>,
  work_dir: string,
  options: LoadConfigOptions,
): Promise<ConfigError | { files: string[]; hook_sets: HookSet[]; hold: ProjectHold | undefined }> {
  const { merged, sources, warnings } = layers;
  const files: string[] = [];
  const hook_sets: HookSet[] = [];
  let hold: ProjectHold | undefined;
  const files_to_read: [string, ConfigSource['layer'], boolean][] = [
    [user_config_path(env), 'user', false],
    options.config_path
      ? [resolve(options.config_path), 'project', true]
      : [project_config_path(work_dir), 'project', false],
  ];
  for (const [path, layer, required] of files_to_read) {
    const read = await read_config_file(path, { required, signal: options.signal });
    if (!read.ok) return read.error;
    warnings.push(...read.warnings);
    if (read.value === undefined) continue;
    files.push(path);
    if (read.value.hooks !== undefined) {
      hook_sets.push({
        origin: layer === 'user' ? 'user' : 'project',
        source: path,
        settings: read.value.hooks as HooksSettings,
      });
    }
    // what the repository's file may not do before trust, against what came before it
    if (layer === 'project') hold = hold_project_settings(structuredClone(merged), read.value);
    merge_layer(merged, sources, read.value, { layer, detail: path });
  }

  return { files, hook_sets, hold };
}

export function apply_env_layer(
  layers: Layers,
  env: Readonly<Record<string, string | undefined>>,
): ConfigError | undefined {
  const { merged, sources } = layers;
  const env_layer: Record<string, unknown> = {};
  const env_names: Record<string, string> = {
    max_turns: 'LICH_MAX_TURNS',
    context_window: 'LICH_CONTEXT_WINDOW',
  };
  for (const [key, name] of Object.entries(env_names)) {
    const value = env_number(env, name);
    if (value !== undefined) env_layer[key] = value;
  }
  if (env.LICH_SESSION_DIR) env_layer.session_dir = env.LICH_SESSION_DIR;
  for (const [key, value] of Object.entries(env_layer)) {
    const name = env_names[key] ?? 'LICH_SESSION_DIR';
    const checked = CONFIG_SCHEMA.shape[key as keyof typeof CONFIG_SCHEMA.shape].safeParse(value);
    if (!checked.success) {
      return ConfigError.from_issues(`env ${name}`, checked.error.issues);
    }
    merge_layer(merged, sources, { [key]: value }, { layer: 'env', detail: `env ${name}` });
  }

  return undefined;
}

export function apply_flag_layer(layers: Layers, flags: ConfigFlags): ConfigError | undefined {
  const { merged, sources } = layers;
  const flag_layer: Record<string, unknown> = {};
  if (flags.max_turns !== undefined) flag_layer.max_turns = flags.max_turns;
  if (flags.session_dir !== undefined) flag_layer.session_dir = flags.session_dir;
  if (flags.max_budget_usd !== undefined) {
    flag_layer.budget = {
      ...((merged.budget as object | undefined) ?? {}),
      session_usd: flags.max_budget_usd,
    };
  }
  if (flags.system_prompt !== undefined) flag_layer.system_prompt = flags.system_prompt;
  if (flags.tools_enabled !== undefined) flag_layer.tools_enabled = [...flags.tools_enabled];
  if (flags.tools_disabled !== undefined) {
    const before = (merged.tools_disabled as string[] | undefined) ?? [];
    flag_layer.tools_disabled = [...before, ...flags.tools_disabled];
  }
  if (flags.append_system_prompt !== undefined) {
    // kept apart: it goes after AGENTS.md, at the very end of what the model reads
    flag_layer.append_system_prompt = flags.append_system_prompt;
  }
  const flag_names: Record<string, string> = {
    max_turns: '--max-turns',
    budget: '--max-budget-usd',
    session_dir: '--session-dir',
    system_prompt: '--system-prompt',
    append_system_prompt: '--append-system-prompt',
    tools_enabled: '--allowed-tools',
    tools_disabled: '--disallowed-tools',
  };
  for (const [key, value] of Object.entries(flag_layer)) {
    const flag = flag_names[key] as string;
    const checked = CONFIG_SCHEMA.shape[key as keyof typeof CONFIG_SCHEMA.shape].safeParse(value);
    if (!checked.success) return ConfigError.from_issues(`flag ${flag}`, checked.error.issues);
    merge_layer(merged, sources, { [key]: value }, { layer: 'flag', detail: `flag ${flag}` });
  }

  return undefined;
}

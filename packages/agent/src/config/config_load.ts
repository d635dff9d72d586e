import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { checkpoint_settings } from '../checkpoints/checkpoints_schema.js';
import type { HookSet } from '../hooks/hooks_schema.js';
import type { HeldUntilTrusted } from '../trust/config_for_trust.js';
import type { ProjectHold } from '../trust/hold_project_settings.js';
import { ConfigError } from './config_error.js';
import {
  apply_env_layer,
  apply_file_layers,
  apply_flag_layer,
  type Layers,
} from './config_layers.js';
import { type AgentConfig, CONFIG_KEYS, CONFIG_SCHEMA, type ConfigFile } from './config_schema.js';
import { apply_provider_layer } from './provider_layer.js';

/** Settings given as command-line flags: the last and strongest source. */
export interface ConfigFlags {
  /** Use only this provider kind (`--provider`). */
  provider?: string;
  /** The model of the first provider (`--model`). */
  model?: string;
  /** The base URL of the first provider (`--base-url`). */
  base_url?: string;
  max_turns?: number;
  /** Dollars a session may spend (`--max-budget-usd`): `budget.session_usd`. */
  max_budget_usd?: number;
  session_dir?: string;
  /** Replaces the system prompt (`--system-prompt`). */
  system_prompt?: string;
  /** Added to the end of the system prompt (`--append-system-prompt`). */
  append_system_prompt?: string;
  /** Replaces `tools_enabled` (`--allowed-tools`). */
  tools_enabled?: readonly string[];
  /** Added to `tools_disabled` (`--disallowed-tools`). */
  tools_disabled?: readonly string[];
}

/** Where one value of the effective config came from. */
export interface ConfigSource {
  layer: 'default' | 'user' | 'project' | 'env' | 'flag' | 'derived';
  /** The file path, variable or flag names, in words: `env LICH_MODEL`, `flag --max-turns`. */
  detail: string;
}

/** How `load_config` finds and merges the config. */
export interface LoadConfigOptions {
  /** The folder the agent works in (default: the process's cwd). Must exist. */
  work_dir?: string;
  /** Where `work_dir` came from, for `sources` (default: a flag when given, else the cwd). */
  work_dir_source?: ConfigSource;
  /** A config file to use instead of `<work_dir>/.lich/config.json` (`--config`); must exist. */
  config_path?: string;
  /** The environment (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  flags?: ConfigFlags;
  /**
   * The provider kinds that can be built (e.g. `BUILT_IN_KIND_NAMES` plus any registered in code).
   * When given, a chain entry of another kind is a ConfigError naming its source and key;
   * absent, kinds are not checked here (the router reports an unknown one at the first call).
   */
  known_kinds?: readonly string[];
  /** Look in the environment for providers when no config names one (default true). */
  detect_providers?: boolean;
  /** Probe a local Ollama when nothing else is set (default true; needs `detect_providers`). */
  probe_ollama?: boolean;
  probe_timeout_ms?: number;
  signal?: AbortSignal;
}

/** The effective config with where each value came from. */
export interface LoadedConfig {
  config: AgentConfig;
  /** Per top-level key (plus `work_dir`), where its value came from. */
  sources: Readonly<Record<string, ConfigSource>>;
  /** Unknown keys (with the nearest known key), and other things worth saying. */
  warnings: readonly string[];
  /** The config files that were read, in order. */
  files: readonly string[];
}

/** The result of `load_config`: the config, or a ConfigError that says what to fix. */
export type LoadConfigResult =
  | ({ ok: true } & LoadedConfig)
  | { ok: false; error: ConfigError; warnings: readonly string[] };

/** Deep-freezes plain objects and arrays; returns its argument. */
export function deep_freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deep_freeze(child);
  }
  return value;
}

/** The kinds `--model kind/model` may name (with their aliases, see `normalize_kind`). */

/**
 * Loads the effective config. Sources, later ones winning: built-in defaults,
 * `$XDG_CONFIG_HOME/lich/config.json` (default `~/.config/lich/config.json`), the project file
 * `<work_dir>/.lich/config.json` (or `config_path`), the environment (`LICH_PROVIDER`,
 * `LICH_MODEL`, `LICH_BASE_URL`, `LICH_MAX_TURNS`, `LICH_CONTEXT_WINDOW`, `LICH_SESSION_DIR`), then
 * `flags`. With no providers configured, the chain comes from the environment (see
 * `detect_env_providers`). The result is deeply frozen; `session_dir` is derived from `work_dir`
 * unless set. Expected failures (bad JSON, a wrong type, a missing work dir) are
 * `{ ok: false, error }` naming the source, the key path and what was expected. Never throws.
 */
export async function load_config(options: LoadConfigOptions = {}): Promise<LoadConfigResult> {
  const env = options.env ?? process.env;
  const warnings: string[] = [];
  const fail = (error: ConfigError): LoadConfigResult => ({ ok: false, error, warnings });
  const work_dir = resolve(options.work_dir ?? process.cwd());
  try {
    const info = await stat(work_dir);
    if (!info.isDirectory()) return fail(new ConfigError(`work dir ${work_dir} is not a folder`));
  } catch {
    return fail(new ConfigError(`work dir ${work_dir} does not exist`, { source: 'work_dir' }));
  }

  const merged: Record<string, unknown> = {};
  const sources: Record<string, ConfigSource> = {};
  for (const key of CONFIG_KEYS) sources[key] = { layer: 'default', detail: 'default' };
  sources.work_dir =
    options.work_dir_source ??
    (options.work_dir
      ? { layer: 'flag', detail: 'flag --work-dir' }
      : { layer: 'default', detail: 'current folder' });

  const layers: Layers = { merged, sources, warnings };
  const read = await apply_file_layers(layers, env, work_dir, options);
  if (read instanceof ConfigError) return fail(read);
  const { files, hook_sets, hold } = read;
  const flags = options.flags ?? {};
  const failed =
    apply_env_layer(layers, env) ??
    apply_flag_layer(layers, flags) ??
    (await apply_provider_layer(layers, env, flags, options));
  if (failed !== undefined) return fail(failed);

  const parsed = CONFIG_SCHEMA.safeParse(merged);
  if (!parsed.success) return fail(ConfigError.from_issues('config', parsed.error.issues));
  if (!parsed.data.session_dir) {
    sources.session_dir = { layer: 'derived', detail: 'derived from work_dir' };
  }
  const held = hold_view(work_dir, merged, hold, { env, flags });
  if (held instanceof ConfigError) return fail(held);
  return {
    ok: true,
    config: finish_config(work_dir, parsed.data, hook_sets, held),
    sources: Object.freeze(sources),
    warnings,
    files,
  };
}

/** What the layers of `load_config` build together: the merged values and where each came from. */

/** The user's file, then the project's (or `--config`): read, checked, merged. */

/** `LICH_MAX_TURNS`, `LICH_CONTEXT_WINDOW`, `LICH_SESSION_DIR`. */

/** The flags that set config keys (`--max-turns`, `--system-prompt`, `--allowed-tools`…). */

/**
 * The values an untrusted folder runs with in place of what the repository's file set (see
 * `hold_project_settings`), checked like the rest; undefined when the file sets nothing held.
 */
function hold_view(
  work_dir: string,
  merged: Readonly<Record<string, unknown>>,
  hold: ProjectHold | undefined,
  given: { env: Readonly<Record<string, string | undefined>>; flags: ConfigFlags },
): HeldUntilTrusted | ConfigError | undefined {
  if (hold === undefined || hold.lines.length === 0) return undefined;
  const raw: Record<string, unknown> = { ...merged, ...hold.values };
  const session_usd = given.flags.max_budget_usd;
  if (session_usd !== undefined && 'budget' in hold.values) {
    raw.budget = { ...(hold.values.budget as object | undefined), session_usd };
  }
  const servers: Record<string, unknown> = { ...(merged.mcp_servers as object | undefined) };
  for (const [name, entry] of Object.entries(hold.mcp_servers)) {
    if (entry === null) delete servers[name];
    else servers[name] = entry;
  }
  raw.mcp_servers = servers;
  // a URL the person gave (LICH_BASE_URL, --base-url) is theirs, even if the file names it too
  const own_urls = [given.env.LICH_BASE_URL, given.flags.base_url];
  raw.providers = ((merged.providers as { base_url?: string }[] | undefined) ?? []).filter(
    (entry) =>
      entry.base_url === undefined ||
      own_urls.includes(entry.base_url) ||
      !hold.provider_urls.includes(entry.base_url),
  );
  const parsed = CONFIG_SCHEMA.safeParse(raw);
  if (!parsed.success) return ConfigError.from_issues('config', parsed.error.issues);
  const view = finish_config(work_dir, parsed.data, []);
  const mcp_servers = Object.fromEntries(
    Object.keys(hold.mcp_servers).map((name) => [name, view.mcp_servers[name] ?? null]),
  );
  return {
    lines: hold.lines,
    values: {
      providers: view.providers,
      plugins: view.plugins,
      permissions: view.permissions,
      sandbox: view.sandbox,
      env_passthrough: view.env_passthrough,
      budget: view.budget,
      prices: view.prices,
    },
    mcp_servers,
  };
}

function finish_config(
  work_dir: string,
  data: z.output<typeof CONFIG_SCHEMA>,
  hooks: readonly HookSet[],
  held_until_trusted?: HeldUntilTrusted,
): AgentConfig {
  const session_dir = data.session_dir
    ? resolve(work_dir, data.session_dir)
    : resolve(work_dir, '.lich', 'sessions');
  const config: AgentConfig = {
    work_dir,
    providers: data.providers,
    max_turns: data.max_turns,
    system_prompt: data.system_prompt,
    ...(data.append_system_prompt === undefined
      ? {}
      : { append_system_prompt: data.append_system_prompt }),
    ...(data.tools_enabled === undefined ? {} : { tools_enabled: data.tools_enabled }),
    ...(data.tools_disabled === undefined ? {} : { tools_disabled: data.tools_disabled }),
    mcp_servers: data.mcp_servers,
    plugins: data.plugins,
    session_dir,
    context_window: data.context_window,
    compression: data.compression,
    env_passthrough: data.env_passthrough,
    permissions: data.permissions,
    // the top-level list is the older spelling: both reach commands
    sandbox: {
      ...data.sandbox,
      env_passthrough: [...new Set([...data.sandbox.env_passthrough, ...data.env_passthrough])],
    },
    checkpoints: checkpoint_settings(data.checkpoints),
    skills: data.skills,
    hooks,
    prices: data.prices,
    budget: data.budget,
    subagents: data.subagents,
    ...(held_until_trusted === undefined ? {} : { held_until_trusted }),
  };
  return deep_freeze(config);
}

/**
 * Builds a frozen AgentConfig from values in code, with no files and no environment: the
 * defaults fill what `input` leaves out and `session_dir` is derived from `work_dir` (default: the
 * process's cwd). Throws a ConfigError when `input` does not fit the schema (a programmer error).
 */
export function make_config(input: ConfigFile & { work_dir?: string } = {}): AgentConfig {
  const { work_dir, $schema: _schema, ...rest } = input;
  const parsed = CONFIG_SCHEMA.safeParse(rest);
  if (!parsed.success) throw ConfigError.from_issues('make_config', parsed.error.issues);
  // hooks given in code are the program's own, like the user's
  const hooks: HookSet[] =
    rest.hooks === undefined
      ? []
      : [{ origin: 'user', source: 'config', settings: parsed.data.hooks }];
  return finish_config(resolve(work_dir ?? process.cwd()), parsed.data, hooks);
}

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { nearest_word } from '@lich/tools';
import type { z } from 'zod';
import { checkpoint_settings } from '../checkpoints/checkpoints_schema.js';
import type { HookSet, HooksSettings } from '../hooks/hooks_schema.js';
import { merge_permissions } from '../permissions/permissions_schema.js';
import { ConfigError } from './config_error.js';
import { project_config_path, read_config_file, user_config_path } from './config_file.js';
import {
  type AgentConfig,
  CONFIG_KEYS,
  CONFIG_SCHEMA,
  type ConfigFile,
  DEFAULT_MODELS,
  default_key_env,
  PROVIDER_ENTRY_SCHEMA,
  type ProviderEntry,
} from './config_schema.js';
import {
  detect_env_providers,
  KIND_ALIAS_NAMES,
  normalize_kind,
  ollama_base_url,
} from './env_providers.js';

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

interface ProviderOverride {
  kind?: string;
  model?: string;
  base_url?: string;
}

/** The kinds `--model kind/model` may name (with their aliases, see `normalize_kind`). */
const MODEL_PREFIX_KINDS = new Set(['openai_compat', 'anthropic', 'ollama', 'gemini', 'bedrock']);

/**
 * `--model anthropic/claude-sonnet-4-5` as a kind and a model, when no kind and no base URL are
 * given beside it: with a base URL (OpenRouter's `anthropic/claude-…`) or a kind
 * (`--provider ollama --model library/qwen`) the whole text is the model's name.
 */
export function split_model_kind(override: ProviderOverride): ProviderOverride {
  if (override.kind || override.base_url || !override.model) return override;
  const slash = override.model.indexOf('/');
  if (slash <= 0 || slash === override.model.length - 1) return override;
  const kind = normalize_kind(override.model.slice(0, slash));
  if (!MODEL_PREFIX_KINDS.has(kind)) return override;
  return { kind, model: override.model.slice(slash + 1) };
}

/**
 * The flags laid over the environment's `LICH_*` values, field by field, with the name each used
 * value came from. A flag that names another kind than `LICH_PROVIDER` drops the model and base
 * URL that came with that variable: they were meant for the other kind.
 */
function combine_overrides(
  env: ProviderOverride,
  flags: ProviderOverride,
  names: { env: ProviderOverride; flags: ProviderOverride },
): { override: ProviderOverride; used: string[] } {
  const env_kind = env.kind ? normalize_kind(env.kind) : undefined;
  const flag_kind = flags.kind ? normalize_kind(flags.kind) : undefined;
  const other_kind = flag_kind !== undefined && env_kind !== undefined && flag_kind !== env_kind;
  const override: ProviderOverride = {};
  const used = new Set<string>();
  for (const field of ['kind', 'model', 'base_url'] as const) {
    const from_flag = flags[field];
    const from_env = field === 'kind' || !other_kind ? env[field] : undefined;
    if (from_flag) {
      override[field] = field === 'kind' ? (flag_kind as string) : from_flag;
      used.add(names.flags[field] as string);
    } else if (from_env) {
      override[field] = field === 'kind' ? (env_kind as string) : from_env;
      used.add(names.env[field] as string);
    }
  }
  return { override, used: [...used] };
}

/**
 * The base URL the environment gives a kind chosen with `--provider`/`LICH_PROVIDER`
 * (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `OLLAMA_HOST`), so a key goes where the user
 * pointed it and not to the vendor's public host.
 */
function env_base_url(
  kind: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (kind === 'openai_compat') return env.OPENAI_BASE_URL || undefined;
  if (kind === 'anthropic') return env.ANTHROPIC_BASE_URL || undefined;
  if (kind === 'ollama') return env.OLLAMA_HOST ? ollama_base_url(env.OLLAMA_HOST) : undefined;
  if (kind === 'gemini') return env.GEMINI_BASE_URL || undefined;
  if (kind === 'bedrock') return env.BEDROCK_BASE_URL || undefined;
  return undefined;
}

/**
 * Applies `--provider/--model/--base-url` (over `LICH_PROVIDER/LICH_MODEL/LICH_BASE_URL`): a kind
 * makes the chain that one provider (keeping the configured entry of that kind, if any, else
 * taking the kind's base URL from the environment); a model or base URL alone changes the first
 * provider; a base URL with no provider at all makes an OpenAI-compatible one.
 */
function override_chain(
  chain: ProviderEntry[],
  override: ProviderOverride,
  env: Readonly<Record<string, string | undefined>>,
): ProviderEntry[] {
  if (override.kind) {
    const kind = override.kind;
    const existing = chain.find((entry) => entry.kind === kind);
    const entry: ProviderEntry = existing
      ? { ...existing }
      : { kind, model: override.model ?? DEFAULT_MODELS[kind] ?? '' };
    if (!existing) {
      const key_env = default_key_env(kind, env);
      if (key_env) entry.api_key_env = key_env;
      const base_url = env_base_url(kind, env);
      if (base_url) entry.base_url = base_url;
    }
    if (override.model) entry.model = override.model;
    if (override.base_url) entry.base_url = override.base_url;
    return [entry];
  }
  const [first, ...rest] = chain;
  if (!first) {
    if (!override.base_url) return chain;
    return [
      {
        kind: 'openai_compat',
        model: override.model ?? (DEFAULT_MODELS.openai_compat as string),
        base_url: override.base_url,
      },
    ];
  }
  if (!override.model && !override.base_url) return chain;
  const changed = { ...first };
  if (override.model) changed.model = override.model;
  if (override.base_url) changed.base_url = override.base_url;
  return [changed, ...rest];
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

  const files: string[] = [];
  const hook_sets: HookSet[] = [];
  const layers: [string, ConfigSource['layer'], boolean][] = [
    [user_config_path(env), 'user', false],
    options.config_path
      ? [resolve(options.config_path), 'project', true]
      : [project_config_path(work_dir), 'project', false],
  ];
  for (const [path, layer, required] of layers) {
    const read = await read_config_file(path, { required, signal: options.signal });
    if (!read.ok) return fail(read.error);
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
    merge_layer(merged, sources, read.value, { layer, detail: path });
  }

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
      return fail(ConfigError.from_issues(`env ${name}`, checked.error.issues));
    }
    merge_layer(merged, sources, { [key]: value }, { layer: 'env', detail: `env ${name}` });
  }

  const flags = options.flags ?? {};
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
    if (!checked.success)
      return fail(ConfigError.from_issues(`flag ${flag}`, checked.error.issues));
    merge_layer(merged, sources, { [key]: value }, { layer: 'flag', detail: `flag ${flag}` });
  }

  // The spellings people write (`openai`, `claude`) name the registered kinds.
  let chain = ((merged.providers as ProviderEntry[] | undefined) ?? []).map((entry) => ({
    ...entry,
    kind: normalize_kind(entry.kind),
  }));
  const env_given = {
    kind: env.LICH_PROVIDER || undefined,
    model: env.LICH_MODEL || undefined,
    base_url: env.LICH_BASE_URL || undefined,
  };
  const flag_given = { kind: flags.provider, model: flags.model, base_url: flags.base_url };
  const env_override = split_model_kind(env_given);
  const flag_override = split_model_kind(flag_given);
  const { override, used } = combine_overrides(env_override, flag_override, {
    env: {
      kind: env_given.kind ? 'LICH_PROVIDER' : 'LICH_MODEL',
      model: 'LICH_MODEL',
      base_url: 'LICH_BASE_URL',
    },
    flags: {
      kind: flag_given.kind ? '--provider' : '--model',
      model: '--model',
      base_url: '--base-url',
    },
  });
  if (chain.length === 0 && !override.kind && !override.base_url) {
    if (options.detect_providers ?? true) {
      const found = await detect_env_providers(env, {
        probe: options.probe_ollama ?? true,
        probe_timeout_ms: options.probe_timeout_ms,
        signal: options.signal,
      });
      if (found.providers.length > 0) {
        chain = found.providers;
        sources.providers = { layer: 'env', detail: found.source };
      }
    }
  }
  const before = chain;
  chain = override_chain(chain, override, env);
  if (chain !== before) {
    const flag_used = used.filter((name) => name.startsWith('--'));
    // the source of each field, after what the environment's detection gave (C37)
    const field_of: Record<string, string> = {
      LICH_PROVIDER: 'kind',
      '--provider': 'kind',
      LICH_MODEL: 'model',
      '--model': 'model',
      LICH_BASE_URL: 'base_url',
      '--base-url': 'base_url',
    };
    // what the entry kept from before (a kind given anew replaces the entry)
    const earlier =
      sources.providers === undefined || override.kind ? [] : [sources.providers.detail];
    const detail = [
      ...earlier,
      ...used.map(
        (name) => `${field_of[name] ?? name}: ${name.startsWith('--') ? 'flag' : 'env'} ${name}`,
      ),
    ].join(', ');
    sources.providers = { layer: flag_used.length > 0 ? 'flag' : 'env', detail };
    for (const [index, entry] of chain.entries()) {
      const checked = PROVIDER_ENTRY_SCHEMA.safeParse(entry);
      if (!checked.success) {
        const issues = checked.error.issues.map((issue) => ({
          ...issue,
          path: ['providers', index, ...issue.path],
        }));
        const error = ConfigError.from_issues(detail, issues);
        if (entry.model !== '') return fail(error);
        // an unknown kind first: "no default model" would send the user after the wrong fix
        const known = options.known_kinds;
        if (known !== undefined && !known.includes(entry.kind)) {
          const near = nearest_word(entry.kind, [...known, ...KIND_ALIAS_NAMES]);
          return fail(
            new ConfigError(
              `${detail}: providers.${index}.kind: unknown provider kind '${entry.kind}' (known: ${known.join(', ')})${near ? `; did you mean '${near}'?` : ''}`,
              { source: detail, key_path: `providers.${index}.kind` },
            ),
          );
        }
        const hint = `${detail}: kind '${entry.kind}' has no default model; set LICH_MODEL or --model`;
        return fail(new ConfigError(hint, { source: detail, key_path: error.key_path }));
      }
    }
  }
  merged.providers = chain;
  if (options.known_kinds !== undefined) {
    const known = options.known_kinds;
    const unknown = chain.findIndex((entry) => !known.includes(entry.kind));
    if (unknown !== -1) {
      const kind = (chain[unknown] as ProviderEntry).kind;
      const source = sources.providers?.detail ?? 'config';
      const near = nearest_word(kind, [...known, ...KIND_ALIAS_NAMES]);
      const key_path = `providers.${unknown}.kind`;
      return fail(
        new ConfigError(
          `${source}: ${key_path}: unknown provider kind '${kind}' (known: ${known.join(', ')})${near ? `; did you mean '${near}'?` : ''}`,
          { source, key_path },
        ),
      );
    }
  }

  const parsed = CONFIG_SCHEMA.safeParse(merged);
  if (!parsed.success) return fail(ConfigError.from_issues('config', parsed.error.issues));
  if (!parsed.data.session_dir) {
    sources.session_dir = { layer: 'derived', detail: 'derived from work_dir' };
  }
  return {
    ok: true,
    config: finish_config(work_dir, parsed.data, hook_sets),
    sources: Object.freeze(sources),
    warnings,
    files,
  };
}

function finish_config(
  work_dir: string,
  data: z.output<typeof CONFIG_SCHEMA>,
  hooks: readonly HookSet[],
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

/**
 * The provider chain's layer of `load_config`: the files' `providers`, else what the environment
 * offers, with `LICH_PROVIDER`/`LICH_MODEL`/`LICH_BASE_URL` and `--provider`/`--model`/
 * `--base-url` over its first entry.
 */
import { nearest_word } from '@lich/tools';
import { ConfigError } from './config_error.js';
import type { Layers } from './config_layers.js';
import type { ConfigFlags, LoadConfigOptions } from './config_load.js';
import {
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

export interface ProviderOverride {
  kind?: string;
  model?: string;
  base_url?: string;
}

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

/**
 * The provider chain: the files' `providers`, else what the environment offers, then
 * `LICH_PROVIDER`/`LICH_MODEL`/`LICH_BASE_URL` and `--provider`/`--model`/`--base-url` over its
 * first entry; each field's source is kept (C37).
 */
export async function apply_provider_layer(
  layers: Layers,
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags,
  options: LoadConfigOptions,
): Promise<ConfigError | undefined> {
  const { merged, sources } = layers;
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
        if (entry.model !== '') return error;
        // an unknown kind first: "no default model" would send the user after the wrong fix
        const known = options.known_kinds;
        if (known !== undefined && !known.includes(entry.kind)) {
          const near = nearest_word(entry.kind, [...known, ...KIND_ALIAS_NAMES]);
          return new ConfigError(
            `${detail}: providers.${index}.kind: unknown provider kind '${entry.kind}' (known: ${known.join(', ')})${near ? `; did you mean '${near}'?` : ''}`,
            { source: detail, key_path: `providers.${index}.kind` },
          );
        }
        const hint = `${detail}: kind '${entry.kind}' has no default model; set LICH_MODEL or --model`;
        return new ConfigError(hint, { source: detail, key_path: error.key_path });
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
      return new ConfigError(
        `${source}: ${key_path}: unknown provider kind '${kind}' (known: ${known.join(', ')})${near ? `; did you mean '${near}'?` : ''}`,
        { source, key_path },
      );
    }
  }

  return undefined;
}

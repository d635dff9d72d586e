import { DEFAULT_MODELS, type ProviderEntry } from './config_schema.js';

/** The Ollama address used when `OLLAMA_HOST` is not set. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

const KIND_ALIASES: Readonly<Record<string, string>> = {
  openai: 'openai_compat',
  'openai-compat': 'openai_compat',
  openai_compatible: 'openai_compat',
  claude: 'anthropic',
  google: 'gemini',
};

/** The other spellings of kinds that `normalize_kind` understands (`openai`, `claude`…). */
export const KIND_ALIAS_NAMES: readonly string[] = Object.freeze(Object.keys(KIND_ALIASES));

/** Maps the spellings people type (`openai`, `claude`) onto registered kinds. */
export function normalize_kind(kind: string): string {
  const lower = kind.trim().toLowerCase();
  return KIND_ALIASES[lower] ?? lower;
}

/** `OLLAMA_HOST` as a base URL: a scheme and a port added when missing, 0.0.0.0 as loopback. */
export function ollama_base_url(host: string | undefined): string {
  const raw = host?.trim();
  if (!raw) return DEFAULT_OLLAMA_HOST;
  const with_scheme = /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`;
  try {
    const url = new URL(with_scheme);
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    if (!url.port && !/^[a-z]+:\/\/[^/]+:\d+/i.test(with_scheme)) url.port = '11434';
    return url.toString().replace(/\/$/, '');
  } catch {
    return DEFAULT_OLLAMA_HOST;
  }
}

/**
 * Asks an Ollama server for its models (`GET /api/tags`). Resolves with the model names, or
 * `null` when nothing answers in `timeout_ms`. Never throws.
 *
 * It uses `node:http` rather than `fetch`: on Node 20 the first `fetch` costs a `lich` run tens
 * of milliseconds at exit (undici's parser is recompiled in the background), and the providers
 * do not use `fetch` either.
 */
export async function probe_ollama(
  base_url: string,
  options: { timeout_ms?: number; signal?: AbortSignal } = {},
): Promise<string[] | null> {
  const timeout = AbortSignal.timeout(options.timeout_ms ?? 300);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const url = new URL(`${base_url}/api/tags`);
    const { get } =
      url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    const text = await new Promise<string | null>((resolve, reject) => {
      const request = get(url, { signal }, (response) => {
        if ((response.statusCode ?? 0) < 200 || (response.statusCode ?? 0) >= 300) {
          response.resume();
          resolve(null);
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', reject);
      });
      request.on('error', reject);
    });
    if (text === null) return null;
    const body = JSON.parse(text) as { models?: { name?: unknown }[] };
    const names = (body.models ?? []).map((model) => model.name);
    return names.filter((name): name is string => typeof name === 'string');
  } catch {
    return null;
  }
}

/** What the environment offered: the chain and the variables it came from. */
export interface EnvProviders {
  providers: ProviderEntry[];
  /** The variables (or the probe) the chain came from, e.g. `env OPENAI_API_KEY`. */
  source: string;
}

/**
 * The failover chain the environment offers when no config names one: `OPENAI_API_KEY`
 * (+ `OPENAI_BASE_URL`), or else Azure OpenAI's `AZURE_OPENAI_API_KEY` + `AZURE_OPENAI_ENDPOINT`
 * (+ `AZURE_OPENAI_DEPLOYMENT`), then `ANTHROPIC_API_KEY` (+ `ANTHROPIC_BASE_URL`), then `GEMINI_API_KEY`
 * or else `GOOGLE_API_KEY` (+ `GEMINI_BASE_URL`), then AWS credentials for Bedrock
 * (`AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY`, `AWS_BEARER_TOKEN_BEDROCK` or `AWS_PROFILE`;
 * + `BEDROCK_BASE_URL`); with none of them, a
 * `LICH_BASE_URL` alone means an OpenAI-compatible server; with none of these, an Ollama that
 * answers at `OLLAMA_HOST` within a short timeout (only when `probe` is true).
 * Never throws; an empty chain means nothing was found.
 */
export async function detect_env_providers(
  env: Readonly<Record<string, string | undefined>>,
  options: { probe?: boolean; probe_timeout_ms?: number; signal?: AbortSignal } = {},
): Promise<EnvProviders> {
  const providers: ProviderEntry[] = [];
  const names: string[] = [];
  if (env.OPENAI_API_KEY) {
    const entry: ProviderEntry = {
      kind: 'openai_compat',
      model: DEFAULT_MODELS.openai_compat as string,
      api_key_env: 'OPENAI_API_KEY',
    };
    if (env.OPENAI_BASE_URL) entry.base_url = env.OPENAI_BASE_URL;
    providers.push(entry);
    names.push(
      `key: env OPENAI_API_KEY${env.OPENAI_BASE_URL ? ', base_url: env OPENAI_BASE_URL' : ''}`,
    );
  }
  if (!env.OPENAI_API_KEY && env.AZURE_OPENAI_API_KEY && env.AZURE_OPENAI_ENDPOINT) {
    const deployment = env.AZURE_OPENAI_DEPLOYMENT;
    const base = env.AZURE_OPENAI_ENDPOINT.replace(/\/+$/, '');
    providers.push({
      kind: 'openai_compat',
      model: deployment || (DEFAULT_MODELS.openai_compat as string),
      base_url: deployment ? `${base}/openai/deployments/${deployment}` : base,
      api_key_env: 'AZURE_OPENAI_API_KEY',
      options: { azure: true },
    });
    names.push('env AZURE_OPENAI_API_KEY');
  }
  if (env.ANTHROPIC_API_KEY) {
    const entry: ProviderEntry = {
      kind: 'anthropic',
      model: DEFAULT_MODELS.anthropic as string,
      api_key_env: 'ANTHROPIC_API_KEY',
    };
    if (env.ANTHROPIC_BASE_URL) entry.base_url = env.ANTHROPIC_BASE_URL;
    providers.push(entry);
    names.push(
      `key: env ANTHROPIC_API_KEY${env.ANTHROPIC_BASE_URL ? ', base_url: env ANTHROPIC_BASE_URL' : ''}`,
    );
  }
  const gemini_key = env.GEMINI_API_KEY
    ? 'GEMINI_API_KEY'
    : env.GOOGLE_API_KEY
      ? 'GOOGLE_API_KEY'
      : '';
  if (gemini_key !== '') {
    const entry: ProviderEntry = {
      kind: 'gemini',
      model: DEFAULT_MODELS.gemini as string,
      api_key_env: gemini_key,
    };
    if (env.GEMINI_BASE_URL) entry.base_url = env.GEMINI_BASE_URL;
    providers.push(entry);
    names.push(`env ${gemini_key}`);
  }
  const aws =
    (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY && 'AWS_ACCESS_KEY_ID') ||
    (env.AWS_BEARER_TOKEN_BEDROCK && 'AWS_BEARER_TOKEN_BEDROCK') ||
    (env.AWS_PROFILE && 'AWS_PROFILE');
  if (aws) {
    const entry: ProviderEntry = { kind: 'bedrock', model: DEFAULT_MODELS.bedrock as string };
    if (env.BEDROCK_BASE_URL) entry.base_url = env.BEDROCK_BASE_URL;
    providers.push(entry);
    names.push(`env ${aws}`);
  }
  if (providers.length === 0 && env.LICH_BASE_URL) {
    providers.push({ kind: 'openai_compat', model: DEFAULT_MODELS.openai_compat as string });
    names.push('env LICH_BASE_URL');
  }
  if (providers.length === 0 && options.probe) {
    const base_url = ollama_base_url(env.OLLAMA_HOST);
    const models = await probe_ollama(base_url, {
      timeout_ms: options.probe_timeout_ms ?? 300,
      signal: options.signal,
    });
    if (models !== null) {
      const preferred = DEFAULT_MODELS.ollama as string;
      const model =
        models.find((name) => name.split(':')[0] === preferred) ?? models[0] ?? preferred;
      providers.push({ kind: 'ollama', model, base_url });
      names.push(`ollama answering at ${base_url}`);
    }
  }
  return { providers, source: names.length > 0 ? names.join(', ') : 'none' };
}

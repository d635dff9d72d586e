import { config_checks, endpoint_url, type ProviderConfig } from '@lich/providers';
import { find_aws_region } from './aws_region.js';
import { bedrock_cache_support, type CachePointPlan } from './bedrock_cache_points.js';
import type { AwsCredentials } from './sign_sigv4.js';

/** The kind this package registers. */
export const BEDROCK_KIND = 'bedrock';

/**
 * The settings of `ProviderConfig.options` this provider understands. All are optional.
 * - `region`: the AWS region (default `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the `region` of
 *   the profile in `~/.aws/config`, else `us-east-1`);
 * - `stream` (default `true`): `false` calls `/converse` for one JSON answer;
 * - `credentials`: `{ access_key_id, secret_access_key, session_token? }`, instead of the
 *   standard AWS places (the environment, then the shared credentials file);
 * - `additional_fields`: the model's own request fields (`additionalModelRequestFields`), e.g.
 *   `{ thinking: { type: 'enabled', budget_tokens: 2048 } }` for Claude's reasoning;
 * - `extra_body`: fields merged into every request body (`guardrailConfig`, …).
 */
export interface BedrockOptions {
  region?: string;
  stream?: boolean;
  credentials?: AwsCredentials;
  additional_fields?: Record<string, unknown>;
  extra_body?: Record<string, unknown>;
}

/** A config read and checked once, when the provider is built. */
export interface BedrockSettings {
  url: string;
  whole_url: string;
  headers: Record<string, string>;
  region: string;
  stream: boolean;
  credentials: AwsCredentials | undefined;
  additional_fields: Record<string, unknown> | undefined;
  extra_body: Record<string, unknown>;
  /**
   * Prompt caching: `undefined` when off (`config.cache.enabled` false, or left out for a model
   * that does not cache), else where cache points go and the TTL they carry (`1h` only when
   * `config.cache.ttl` asks for it and the model takes it).
   */
  cache: CachePointPlan | undefined;
}

/**
 * Reads a `ProviderConfig` into settings. Reads `process.env` for the region, and the AWS config
 * file when neither the options nor the environment name one; no other I/O.
 *
 * Contract: throws a `ProviderError` of kind `config` for a base URL that is no URL or an option
 * of the wrong type (a region that is not letters, digits and dashes among them), naming the
 * option.
 */
export function read_bedrock_settings(
  config: ProviderConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): BedrockSettings {
  const check = config_checks(BEDROCK_KIND, config);
  const options = (config.options ?? {}) as BedrockOptions;
  // the region goes into the host name: `evil.example#` would send the signed request elsewhere
  if (
    options.region !== undefined &&
    (typeof options.region !== 'string' || !/^[a-z0-9-]*$/.test(options.region))
  ) {
    throw check.fail('options.region must be a region name, e.g. us-east-1');
  }
  const found = options.region
    ? { region: options.region, from: 'options.region' }
    : find_aws_region(env);
  if (!/^[a-z0-9-]+$/.test(found.region)) {
    throw check.fail(`the region from ${found.from} must be a region name, e.g. us-east-1`);
  }
  const region = found.region;
  check.boolean('stream', options.stream);
  check.object('credentials', options.credentials, '{ access_key_id, secret_access_key }');
  check.object('additional_fields', options.additional_fields);
  check.object('extra_body', options.extra_body);
  const to_url = (path: string) =>
    check.url((base) =>
      endpoint_url(base ?? `https://bedrock-runtime.${region}.amazonaws.com`, (prefix) => {
        return `${prefix}/model/${encodeURIComponent(config.model)}/${path}`;
      }),
    );
  const headers: Record<string, string> = {
    accept: 'application/vnd.amazon.eventstream, application/json',
    'content-type': 'application/json',
  };
  Object.assign(headers, config.headers);
  const ttl = config.cache?.ttl ?? '5m';
  if (ttl !== '5m' && ttl !== '1h') throw check.fail(`cache.ttl must be '5m' or '1h'`);
  const support = bedrock_cache_support(config.model);
  // asked for by name on a model id Lich does not know (an ARN, a new model): Claude's placement
  const enabled = config.cache?.enabled ?? support.cache;
  const known = support.cache;
  const cache: CachePointPlan | undefined = enabled
    ? {
        tools: known ? support.tools : true,
        ...(ttl === '1h' && (known ? support.ttl_1h : true) ? { ttl: '1h' as const } : {}),
      }
    : undefined;
  return {
    url: to_url('converse-stream'),
    whole_url: to_url('converse'),
    headers,
    region,
    stream: options.stream ?? true,
    credentials: options.credentials,
    additional_fields: options.additional_fields,
    extra_body: options.extra_body ?? {},
    cache,
  };
}

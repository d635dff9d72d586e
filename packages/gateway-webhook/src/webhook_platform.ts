import {
  type AdapterInput,
  GatewayConfigError,
  max_image_bytes_setting,
  type PlatformCliIo,
  type PlatformDefinition,
  run_platform_cli,
} from '@lich/gateway';
import { decode_webhook_secret, WebhookSecretError } from './standard_webhooks.js';
import { WebhookAdapter, type WebhookAdapterOptions } from './webhook_adapter.js';
import { WEBHOOK_PLATFORM } from './webhook_payload.js';

/** The environment variable the signing secret is read from, unless `secret_env` names another. */
export const DEFAULT_SECRET_ENV = 'LICH_WEBHOOK_SECRET';

const SETTINGS_KEYS = [
  'host',
  'port',
  'path',
  'reply',
  'callback_url',
  'reply_timeout_ms',
  'max_body_bytes',
  'max_text_chars',
  'max_message_chars',
  'secret_env',
  'callback_secret_env',
  'max_image_bytes',
  'image_url_hosts',
];

function whole(name: string, value: unknown, minimum: number): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < minimum) {
    throw new GatewayConfigError(`${name} must be a whole number of at least ${minimum}`);
  }
  return number;
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new GatewayConfigError(`${name} must be a non-empty string`);
  }
  return value;
}

function secret(env: AdapterInput['env'], variable: string, what: string): Buffer {
  const value = env[variable];
  if (value === undefined || value === '') {
    throw new GatewayConfigError(
      `set ${variable} to the ${what} (whsec_ followed by base64, e.g. whsec_$(openssl rand -base64 32))`,
    );
  }
  try {
    return decode_webhook_secret(value);
  } catch (error) {
    if (error instanceof WebhookSecretError) {
      throw new GatewayConfigError(`${variable}: ${error.message}`);
    }
    throw error;
  }
}

/** Builds the adapter from flags (first), the `webhook` settings section, and the environment. */
export function make_webhook_adapter(input: AdapterInput): WebhookAdapter {
  const { flags, settings, env } = input;
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_KEYS.includes(key)) {
      input.log({ level: 'warn', message: `webhook: unknown setting ${key} is ignored` });
    }
  }
  const pick = (flag: string, key: string) => flags[flag] ?? settings[key];
  const reply = pick('reply', 'reply') ?? 'sync';
  if (reply !== 'sync' && reply !== 'async') {
    throw new GatewayConfigError('reply must be sync or async');
  }
  const options: WebhookAdapterOptions = {
    key: secret(
      env,
      text('secret_env', settings.secret_env ?? DEFAULT_SECRET_ENV),
      'signing secret',
    ),
    mode: reply,
    on_log: input.log,
  };
  const host = pick('host', 'host');
  if (host !== undefined) options.host = text('host', host);
  const port = pick('port', 'port');
  options.port = port === undefined ? 8787 : whole('port', port, 0);
  const path = pick('path', 'path');
  if (path !== undefined) {
    options.path = text('path', path);
    if (!options.path.startsWith('/')) throw new GatewayConfigError('path must start with /');
  }
  const callback = pick('callback-url', 'callback_url');
  if (callback !== undefined) options.callback_url = text('callback_url', callback);
  if (settings.callback_secret_env !== undefined) {
    options.callback_key = secret(
      env,
      text('callback_secret_env', settings.callback_secret_env),
      'callback signing secret',
    );
  }
  const numbers: [string, string, keyof WebhookAdapterOptions, number][] = [
    ['reply-timeout-ms', 'reply_timeout_ms', 'reply_timeout_ms', 1],
    ['max-body-bytes', 'max_body_bytes', 'max_body_bytes', 256],
    ['', 'max_text_chars', 'max_text_chars', 1],
    ['', 'max_message_chars', 'max_message_chars', 16],
  ];
  for (const [flag, key, option, minimum] of numbers) {
    const value = flag === '' ? settings[key] : pick(flag, key);
    if (value !== undefined)
      (options as unknown as Record<string, number>)[option] = whole(key, value, minimum);
  }
  const max_image_bytes = max_image_bytes_setting(settings.max_image_bytes);
  if (max_image_bytes !== undefined) options.max_image_bytes = max_image_bytes;
  const hosts = settings.image_url_hosts;
  if (hosts !== undefined) {
    if (!Array.isArray(hosts) || !hosts.every((host) => typeof host === 'string' && host !== '')) {
      throw new GatewayConfigError('image_url_hosts must be a list of host names');
    }
    options.image_url_hosts = hosts;
  }
  if (options.mode === 'async' && options.callback_url === undefined) {
    throw new GatewayConfigError(
      'reply async needs a callback URL (--callback-url or callback_url)',
    );
  }
  return new WebhookAdapter(options);
}

/** What `lich gateway webhook` and `npx @lich/gateway-webhook` run. */
export const WEBHOOK_DEFINITION: PlatformDefinition = {
  platform: WEBHOOK_PLATFORM,
  package_name: '@lich/gateway-webhook',
  description: 'a Lich bot behind a signed HTTP webhook (Standard Webhooks)',
  options: {
    host: {
      type: 'string',
      hint: '<address>',
      help: 'the address to listen on (default 127.0.0.1)',
    },
    port: { type: 'string', hint: '<n>', help: 'the port (default 8787; 0 picks a free one)' },
    path: { type: 'string', hint: '<path>', help: 'the path POSTs go to (default /webhook)' },
    reply: {
      type: 'string',
      hint: 'sync|async',
      help: 'the answer in the HTTP response (sync, default), or POSTed to --callback-url',
    },
    'callback-url': { type: 'string', hint: '<url>', help: 'where async replies are POSTed' },
    'reply-timeout-ms': {
      type: 'string',
      hint: '<ms>',
      help: 'sync: wait this long for the answer, then 202 (default 60000)',
    },
    'max-body-bytes': {
      type: 'string',
      hint: '<n>',
      help: 'larger bodies are refused with 413 (default 65536)',
    },
  },
  help: `Environment:
  LICH_WEBHOOK_SECRET   the signing secret, whsec_<base64> (required; secret_env names another)

Settings: the "webhook" section of .lich/gateway.json takes the access keys (allow_users,
allow_groups, dm_policy, group_policy, allow_all), the bus keys (mode, max_concurrency,
max_conversations, max_history_messages, collect_debounce_ms, rate_limit, drain_deadline_ms,
approvals_chat) and host, port, path, reply, callback_url, reply_timeout_ms, max_body_bytes,
max_text_chars, max_message_chars, secret_env, callback_secret_env.

A request: POST <path> with content-type application/json, the Standard Webhooks headers
(webhook-id, webhook-timestamp, webhook-signature) and
  { "chat_id": "c1", "sender": { "id": "u1", "name": "Ann" }, "text": "Hello" }`,
  make_adapter: make_webhook_adapter,
};

/** Runs the webhook gateway command (`run`, `pair <code>`, `--help`); resolves the exit code. */
export function run_cli(argv: readonly string[], io?: Partial<PlatformCliIo>): Promise<number> {
  return run_platform_cli(WEBHOOK_DEFINITION, argv, io);
}

import {
  type AdapterInput,
  GatewayConfigError,
  max_image_bytes_setting,
  type PlatformCliIo,
  type PlatformDefinition,
  run_platform_cli,
} from '@lich/gateway';
import { TelegramAdapter, type TelegramAdapterOptions } from './telegram_adapter.js';
import { TELEGRAM_PLATFORM } from './telegram_message.js';

/** The environment variable the bot token is read from, unless `token_env` names another. */
export const DEFAULT_TOKEN_ENV = 'TELEGRAM_BOT_TOKEN';
/** The environment variable of the webhook secret token, unless `secret_env` names another. */
export const DEFAULT_SECRET_ENV = 'TELEGRAM_WEBHOOK_SECRET';

const SETTINGS_KEYS = [
  'token_env',
  'api_root',
  'webhook_url',
  'secret_env',
  'host',
  'port',
  'max_image_bytes',
];

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new GatewayConfigError(`${name} must be a non-empty string`);
  }
  return value;
}

/** Builds the adapter from flags (first), the `telegram` settings section, and the environment. */
export function make_telegram_adapter(input: AdapterInput): TelegramAdapter {
  const { flags, settings, env } = input;
  for (const key of Object.keys(settings)) {
    if (!SETTINGS_KEYS.includes(key)) {
      input.log({ level: 'warn', message: `telegram: unknown setting ${key} is ignored` });
    }
  }
  const pick = (flag: string, key: string) => flags[flag] ?? settings[key];
  const token_env = text('token_env', settings.token_env ?? DEFAULT_TOKEN_ENV);
  const token = env[token_env];
  if (token === undefined || token === '') {
    throw new GatewayConfigError(
      `set ${token_env} to the bot token that @BotFather gave you (123456:ABC-…)`,
    );
  }
  const options: TelegramAdapterOptions = { token, log: input.log };
  const api_root = pick('api-root', 'api_root');
  if (api_root !== undefined) options.api_root = text('api_root', api_root);
  const webhook_url = pick('webhook-url', 'webhook_url');
  if (webhook_url !== undefined) {
    const url = text('webhook_url', webhook_url);
    const secret_env = text('secret_env', settings.secret_env ?? DEFAULT_SECRET_ENV);
    const secret = env[secret_env];
    if (secret === undefined || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)) {
      throw new GatewayConfigError(
        `webhook mode needs ${secret_env}: 1-256 characters of A-Z a-z 0-9 _ - (e.g. $(openssl rand -hex 32))`,
      );
    }
    const port = pick('port', 'port');
    const port_number = port === undefined ? 8443 : Number(port);
    if (!Number.isInteger(port_number) || port_number < 0) {
      throw new GatewayConfigError('port must be a whole number');
    }
    const host = pick('host', 'host');
    options.webhook = {
      url,
      secret_token: secret,
      port: port_number,
      ...(host === undefined ? {} : { host: text('host', host) }),
    };
  }
  const max_image_bytes = max_image_bytes_setting(settings.max_image_bytes);
  if (max_image_bytes !== undefined) options.max_image_bytes = max_image_bytes;
  return new TelegramAdapter(options);
}

/** What `lich gateway telegram` and `npx @lich/gateway-telegram` run. */
export const TELEGRAM_DEFINITION: PlatformDefinition = {
  platform: TELEGRAM_PLATFORM,
  package_name: '@lich/gateway-telegram',
  description: 'a Lich bot on Telegram (long polling, or a webhook with --webhook-url)',
  options: {
    'webhook-url': {
      type: 'string',
      hint: '<url>',
      help: 'take updates by webhook at this public HTTPS URL instead of long polling',
    },
    host: { type: 'string', hint: '<address>', help: 'webhook: listen here (default 127.0.0.1)' },
    port: { type: 'string', hint: '<n>', help: 'webhook: the port to listen on (default 8443)' },
    'api-root': {
      type: 'string',
      hint: '<url>',
      help: 'the Bot API root (default https://api.telegram.org; a local Bot API server)',
    },
  },
  help: `Environment:
  TELEGRAM_BOT_TOKEN        the bot token from @BotFather (required; token_env names another)
  TELEGRAM_WEBHOOK_SECRET   webhook mode: the secret token Telegram sends back in
                            X-Telegram-Bot-Api-Secret-Token (secret_env names another)

Settings: the "telegram" section of .lich/gateway.json takes the access keys (allow_users,
allow_groups, dm_policy, group_policy, allow_all), the bus keys, and token_env, api_root,
webhook_url, secret_env, host, port. User and group ids are Telegram's numeric ids (a group's is
negative); a forum topic is its own conversation.

Only one process may long-poll a bot token (Telegram answers 409 to a second one); run several
nodes with --webhook-url behind a load balancer.`,
  make_adapter: make_telegram_adapter,
};

/** Runs the Telegram gateway command (`run`, `pair <code>`, `--help`); resolves the exit code. */
export function run_cli(argv: readonly string[], io?: Partial<PlatformCliIo>): Promise<number> {
  return run_platform_cli(TELEGRAM_DEFINITION, argv, io);
}
